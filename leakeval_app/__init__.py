"""Streamlit-side glue: session/URL state, cached loaders, rendering helpers.

Everything that computes lives in leakeval_core; this package only caches and renders.
"""
