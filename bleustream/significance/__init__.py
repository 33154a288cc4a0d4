"""Significance: the segment store, SacreBLEU's resampling draws and their numpy scoring."""
