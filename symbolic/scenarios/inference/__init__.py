"""Inference: prefill, decode, KV cache and serving."""
