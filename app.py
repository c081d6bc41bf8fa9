"""The dashboard's entry file: `streamlit run app.py` from a checkout, with its pages in
app_pages/ beside it. The wheel installs this same file as leakeval_app/app.py, beside its
copy of app_pages/, and `leakeval app` serves it; a test holds the two files equal.

The chart component's preload goes out before the dashboard is imported: on a cold start
that import waits for pandas, pyarrow and the core, and the browser's fetching and compiling
the component is what the first chart waits for, so the two overlap (`preload`)."""

from leakeval_app.preload import preload_charts

preload_charts()

from leakeval_app.main import run  # noqa: E402

run()
