"""Reading what users bring: TREC runs and qrels (arrow), topics and query logs; every problem a
ParseError naming the file and line.
"""
