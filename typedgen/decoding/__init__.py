"""The generation loop on torch/transformers: sampling, batches, beams, jump-forward, overlap.

Nothing here is imported by ``import typedgen``; torch is imported inside functions only.
"""
