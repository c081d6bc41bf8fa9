"""leakage"""
