"""The plan pages' questions: workloads (forms/workloads.py: three kinds of job), and the plan
form whose cleaned data becomes the recommend question of `planner.plans`, with the five weights
that re-order a plan (forms/plans.py).

Validation beyond the field types is the engine's: a workload is checked by the same contract
the plan runs, and a plan's `RequestError` is put beside the field it names
(`PlanForm.error_field`), so the pages, the API and `manage.py recommend` answer the same
errors. Writes are in planner/plans/services.py; reads in planner/plans/selectors.py."""
