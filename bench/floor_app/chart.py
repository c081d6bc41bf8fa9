import plotly.express as px
import streamlit as st

st.header("Chart page")
st.plotly_chart(px.scatter(x=list(range(200)), y=list(range(200))))
