"""Past one machine: the same units of work as `--jobs N`, sent to a Dask cluster (`--scheduler`).

Generic: it knows nothing of cases, traces or answers. A command hands it a unit function
`work(setup, item) -> result` (the public seams: trace.ranks.measure_rank,
cli.diagnose.diagnose_one, grading.batch.grade_one), the setup that function needs (knowledge,
rubric, format: shipped once per worker as content, by a worker plugin) and the items; results
come back in input order. Dask is an optional extra (`pip install 'regime[dask]'`), imported
only when `--scheduler` is given.
"""
