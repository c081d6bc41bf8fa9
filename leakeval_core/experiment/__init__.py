"""An experiment folder: manifest, [design] roles, collections, content-addressed cache, and the
SCORES table.
"""
