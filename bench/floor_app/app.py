"""Two bare pages for bench/streamlit_floor.py: what any Streamlit page switch costs here."""

import streamlit as st

pages = [
    st.Page("text.py", title="Text", url_path="text", default=True),
    st.Page("chart.py", title="Chart", url_path="chart"),
]
router = st.navigation(pages)
with st.sidebar:
    st.selectbox("Measure", ["nDCG@10", "P@1"])
router.run()
