"""A match's games on a Dask cluster: the only package that imports Dask (and only when used)."""
