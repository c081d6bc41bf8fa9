"""The dashboard, from a checkout: `streamlit run app.py` (what `make app` does)."""

from leakeval_app.main import run

run()
