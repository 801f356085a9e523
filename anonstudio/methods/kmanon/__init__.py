"""σ-k^m anonymity: items merged into partitions until any m items of a person match at least k people."""
