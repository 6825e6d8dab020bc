"""The knowledge layer: packs read, checked, compiled and cached."""
