"""Measured facts from PyTorch profiler (Kineto) traces: `regime trace`, `diagnose --trace`."""
