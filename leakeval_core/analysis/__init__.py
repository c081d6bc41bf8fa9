"""Statistics over the SCORES table: folds combined per query, paired tests, corrections,
comparisons, inflation, ranking change.
"""
