import streamlit as st

st.header("Text page")
st.write("One paragraph, nothing else.")
