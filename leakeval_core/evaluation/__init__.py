"""Scoring under explicit conventions: measure declarations, their computations (native or
pytrec_eval), ranking with the tie policy.
"""
