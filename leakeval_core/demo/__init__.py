"""The deterministic, clearly labelled simulated demo experiment."""
