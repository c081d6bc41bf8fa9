"""Near-duplicates of test topics in training logs: detection methods, the LEAKAGE table, and
quality against human judgments.
"""
