"""The dashboard's entry file: `streamlit run app.py` from a checkout, with its pages in
app_pages/ beside it. The wheel installs this same file as leakeval_app/app.py, beside its
copy of app_pages/, and `leakeval app` serves it; a test holds the two files equal."""

from leakeval_app.main import run

run()
