"""Output: records as text, TSV, JSON and stats; SacreBLEU's tables; progress lines."""
