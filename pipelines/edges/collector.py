"""The cycle collector's pace in a process that runs one bridgeledger job (a command, an Airflow task).

CPython runs its cycle collector after every 700 new container objects, by default. A careful
reader builds tens of thousands of records, and a site build thousands of frames and template
values, none of them in reference cycles, so almost every collection visits live objects to free
nothing. Measured on 10,000 boards read by the careful readers: with the default pace the collector
took 18 % (LIN) and 12 % (PBN) of the reading time, in about 600 collections; at the pace below,
3-4 %, in under ten. The rare cycles are still collected, later.

This is a decision for the process that runs the job, so only its entry points make it: the
`bridgeledger` command and the Airflow tasks. A library call (the readers, scoring) never changes
the interpreter's collector for the program that called it.
"""

import gc

JOB_THRESHOLDS = (50_000, 20, 20)
"""`gc.set_threshold` for a job's process: the youngest generation is collected after 50,000 new
container objects (default 700), the older two after 20 collections of the one below (default 10)."""


def pace_for_a_job() -> None:
    """Set the collector's pace for a process that runs one job (see the module's note)."""
    gc.set_threshold(*JOB_THRESHOLDS)
