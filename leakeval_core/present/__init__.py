"""Formatting at the edge: figures, tables, and the self-contained HTML meeting report. Nothing
here computes a statistic.
"""
