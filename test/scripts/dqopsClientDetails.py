"""Reads what DQOps's generated Python client (package dqops.client, not part of dqctl: pass the folder holding
it) parses out of a few of dqctl's answers, and prints it as one JSON object, for test/scripts/dqopsCompat.test.ts
to compare with what it expects. The server is `dqctl demo` (examples/shop).

    python3 test/scripts/dqopsClientDetails.py --client DIR --base-url URL
"""
import argparse
import json
import sys


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--client', required=True)
    parser.add_argument('--base-url', required=True)
    options = parser.parse_args()
    sys.path.insert(0, options.client)
    from dqops.client import Client
    from dqops.client.api.jobs import collect_statistics_on_table, get_job, run_checks, wait_for_job
    from dqops.client.api.table_comparisons import (create_table_comparison_monitoring_monthly, delete_table_comparison_configuration,
                                                    get_table_comparison_configurations)
    from dqops.client.models import (CheckSearchFilters, CheckTimeScale, CheckType, RunChecksParameters, StatisticsCollectorSearchFilters,
                                     TableComparisonModel)

    client = Client(base_url=options.base_url, timeout=120.0)
    out = {}

    # a run of one table's checks: what get_job and wait_for_job show of its parameters. A job start answers 201,
    # as DQOps's does, which the generated client does not parse (it parses 200 only): read the answer's JSON.
    started = json.loads(run_checks.sync_detailed(client=client, wait=True, wait_timeout=120, json_body=RunChecksParameters(
        check_search_filters=CheckSearchFilters(connection='shop_oltp', full_table_name='public.orders', check_name='daily_row_count'))).content)
    job_id = str(started['jobId']['jobId'])
    for name, module in (('get_job', get_job), ('wait_for_job', wait_for_job)):
        job = module.sync(job_id, client=client)
        run = job.parameters.run_checks_parameters
        out[name] = {
            'job_type': str(job.job_type),
            'status': str(job.status),
            'connection': run.check_search_filters.connection,
            'full_table_name': run.check_search_filters.full_table_name,
            'check_name': run.check_search_filters.check_name,
            'executed_checks': run.run_checks_result.executed_checks,
            'started_executed_checks': started['result']['executed_checks'],
            'other_kinds': sorted(k for k, v in job.parameters.to_dict().items() if k != 'runChecksParameters'),
        }

    # a statistics collection: its filters under collectStatisticsParameters
    collected = json.loads(collect_statistics_on_table.sync_detailed(client=client, wait=True, wait_timeout=120, json_body=StatisticsCollectorSearchFilters(
        connection='shop_oltp', full_table_name='public.customers')).content)
    job = get_job.sync(str(collected['jobId']['jobId']), client=client)
    statistics = job.parameters.collect_statistics_parameters
    out['statistics_job'] = {
        'job_type': str(job.job_type),
        'connection': statistics.statistics_collector_search_filters.connection,
        'full_table_name': statistics.statistics_collector_search_filters.full_table_name,
        'data_scope': str(statistics.data_scope),
        'collected_results': statistics.collect_statistics_result.total_collected_results,
        'started_collected_results': collected['result']['total_collected_results'],
    }

    # the comparison configurations of the warehouse's fact table, filtered by check type and time scale: the
    # example's and one this script creates with monthly monitoring checks (and deletes); others a client run
    # may have left are not looked at
    mine = 'details_monthly'
    create_table_comparison_monitoring_monthly.sync_detailed('analytics_dwh', 'mart', 'fact_orders', client=client, json_body=TableComparisonModel.from_dict({
        'table_comparison_configuration_name': mine, 'reference_connection': 'shop_oltp', 'reference_table': {'schema_name': 'public', 'table_name': 'orders'},
        'compare_row_count': {'error_difference_percent': 1.0}}))

    def names(**filters):
        listed = get_table_comparison_configurations.sync('analytics_dwh', 'mart', 'fact_orders', client=client, **filters)
        return [c.table_comparison_configuration_name for c in listed if c.table_comparison_configuration_name in ('matches_shop_orders', mine)]
    out['comparisons'] = {
        'all': names(),
        'profiling': names(check_type=CheckType.PROFILING),
        'monitoring': names(check_type=CheckType.MONITORING),
        'monitoring_daily': names(check_type=CheckType.MONITORING, check_time_scale=CheckTimeScale.DAILY),
        'monthly': names(check_time_scale=CheckTimeScale.MONTHLY),
    }
    delete_table_comparison_configuration.sync_detailed('analytics_dwh', 'mart', 'fact_orders', mine, client=client)
    json.dump(out, sys.stdout, indent=1)


main()
