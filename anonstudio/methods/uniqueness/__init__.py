"""Risk of the raw data: itemset uniqueness and person unicity vs m, and the linkage attack demo."""
