"""What an orchestrator and the command line call: the weekend's operations, Airflow's task calls,
notices, the demo, analysts' SQL."""
