"""Statistics over the SCORES table: folds combined per query, paired tests, corrections,
comparisons, inflation, the leakage audit, rank agreement (ranking change), the convention
check and what a collection holds.
"""
