"""leakeval's Streamlit-free core: read, score, compare and find leaked test queries.

Submodules are imported on demand so `leakeval --help` stays fast.
"""

__all__ = ["LeakevalError", "ParseError"]

from .errors import LeakevalError, ParseError
