#!/usr/bin/env python3
"""Calls every operation of DQOps's generated Python client (package dqops.client) against a running
`dqctl serve` and reports, per operation: works (2xx and the answer parses into the client's model), refused
(a group dqctl does not serve answers 404 or 501 with dqctl's error body {timestamp,status,error,code,message,
path}) or fails (anything else: a 4xx/5xx where an answer was expected, an answer the client cannot parse).

The client is not part of dqctl (its licence forbids copying it): pass the folder that holds the `dqops`
package, e.g. distribution/python of DQOps's repository extracted to a temporary folder.

    python3 scripts/dqops-client-check.py --client /tmp/dqo-client/distribution/python \
        --base-url http://127.0.0.1:8888 [--json] [--only group,group]

The server is expected to serve dqctl's examples/shop (as `dqctl demo` does): connection shop_oltp, table
public.orders with columns order_id ... . Operations run in phases: creates of throwaway objects first, then
reads, then updates, then deletes of the throwaway objects, so that one run leaves the examples in place.
Exit code 0 when no operation of a served group fails, 1 otherwise.
"""
import argparse
import datetime
import enum
import importlib
import inspect
import json
import pkgutil
import re
import sys
import traceback
import typing

# Groups of the client that make no sense for dqctl: they must answer 404/501 with dqctl's error body.
UNSERVED_GROUPS = {
    'users', 'dashboards', 'data_domains', 'log_shipping', 'rule_mining', 'data_catalog_synchronization',
    'environment', 'shared_credentials', 'search',
}

# Operations of served groups that dqctl deliberately does not serve (README: "DQOps's Python client").
UNSERVED_OPERATIONS = {'start_cron_scheduler', 'stop_cron_scheduler', 'synchronize_folders'}

FIXTURE = {
    'connection_name': 'shop_oltp', 'schema_name': 'public', 'table_name': 'orders', 'column_name': 'order_status',
    'time_scale': 'daily', 'scheduling_group': 'monitoring_daily', 'pattern_name': 'Detect empty tables daily',
    'full_rule_name': 'volume/order_volume_band', 'check_name': 'daily_row_count', 'check_category': 'volume',
    'table_comparison_configuration_name': 'orders_vs_fact',
    # the grouping the create makes is read, updated, made the default and deleted
    'data_grouping_configuration_name': 'client_grouping', 'grouping_configuration_name': 'client_grouping', 'source_connection': 'shop_oltp', 'source_schema': 'public',
    'source_table': 'customers', 'target_pattern_name': 'client copy', 'source_pattern_name': 'Detect empty tables daily',
    'job_id': '1', 'year': 2025, 'month': 1, 'incident_id': 'missing', 'full_sensor_name': 'table/volume/row_count',
    'full_check_name': 'table/monitoring/daily/volume/daily_row_count', 'folder': 'x', 'folder1': 'x', 'folder2': 'x', 'folder3': 'x',
    'folder4': 'x', 'folder5': 'x', 'email': 'someone@example.com', 'dashboard_name': 'x', 'dictionary_name': 'client.csv',
    'credential_name': 'x', 'data_domain_name': 'x', 'data_domain_display_name': 'x', 'filtered_notification_name': 'client_notification',
    'sequence_number': 1, 'status': 'open', 'issue_url': 'https://example.com/issue/1',
}

# Groups about a table with lineage and a table comparison (the warehouse's fact table).
GROUP_FIXTURE = {
    group: {'connection_name': 'analytics_dwh', 'schema_name': 'mart', 'table_name': 'fact_orders',
            'table_comparison_configuration_name': 'matches_shop_orders', 'source_table': 'orders'}
    for group in ('data_lineage', 'table_comparisons', 'table_comparison_results')
}
GROUP_FIXTURE['column_quality_policies'] = {'pattern_name': 'email_columns_valid', 'source_pattern_name': 'email_columns_valid'}
# DQOps 1.7.0's client (an older release) serves the same policies as "default checks patterns"
GROUP_FIXTURE['default_column_check_patterns'] = GROUP_FIXTURE['column_quality_policies']

# Creates of the same kind of object under another name (a "target only" create after a full create).
THROWAWAY_OF_OPERATION = {
    'create_connection_basic': {'connection_name': 'client_conn_basic'},
    'create_table_grouping_configuration': {'table_name': 'orders'},
    **{f'create_table_comparison_{c}': {'table_name': 'fact_orders'} for c in (
        'configuration', 'profiling', 'monitoring_daily', 'monitoring_monthly', 'partitioned_daily', 'partitioned_monthly')},
    'create_table_quality_policy_target': {'pattern_name': 'client policy target'},
    'create_column_quality_policy_target': {'pattern_name': 'client policy target'},
    'create_default_table_checks_pattern_target': {'pattern_name': 'client policy target'},
    'create_default_column_checks_pattern_target': {'pattern_name': 'client policy target'},
    'create_table_source_table': {'source_table': 'shipments'},
    'delete_table_source_table': {'source_table': 'shipments'},
    # the name is in the body: the path ends with the connection, which must exist
    'create_connection_filtered_notification_configuration': {'connection_name': 'shop_oltp'},
    # definitions: the updates change the throwaway custom ones (a built-in check definition cannot be changed)
    'update_sensor': {'full_sensor_name': 'table/client/client_sensor'},
    'update_check': {'full_check_name': 'table/profiling/custom/client_check'},
}

# Names the create and delete operations use for the object their path ends with (so reads keep the examples).
THROWAWAY = {
    'connection_name': 'client_conn', 'table_name': 'client_table', 'column_name': 'client_column',
    'pattern_name': 'client policy', 'full_rule_name': 'client/rule', 'data_grouping_configuration_name': 'client_grouping',
    'table_comparison_configuration_name': 'client_comparison', 'source_table': 'payments', 'target_pattern_name': 'client copy',
    'filtered_notification_name': 'client_notification', 'full_sensor_name': 'table/client/client_sensor',
    'full_check_name': 'table/profiling/custom/client_check',
}

PHASE_OF_PREFIX = [('create_', 0), ('add_', 0), ('copy_', 0), ('get_', 1), ('is_', 1), ('find_', 1), ('update_', 2), ('set_', 2),
                   ('run_', 2), ('collect_', 2), ('import_', 2), ('synchronize_', 2), ('start_', 2), ('stop_', 2),
                   ('delete_', 3), ('cancel_', 3), ('disable_', 2), ('enable_', 2)]


def phase_of(op):
    for prefix, phase in PHASE_OF_PREFIX:
        if op.startswith(prefix):
            return phase
    return 2


def last_path_param(module):
    src = inspect.getsource(module._get_kwargs)
    url = re.search(r'"url": "([^"]+)"', src).group(1)
    names = re.findall(r'\{(\w+)\}', url)
    return url, re.sub(r'(?<!^)(?=[A-Z])', '_', names[-1]).lower() if names else None


def enum_value(cls, name):
    preferred = {'time_scale': 'daily', 'check_time_scale': 'daily', 'scheduling_group': 'monitoring_daily', 'check_type': 'monitoring'}
    want = preferred.get(name)
    for member in cls:
        if member.value == want:
            return member
    return list(cls)[0]


def model_namespace():
    # the models import each other only for type checking: resolve their annotations against all of them
    models = importlib.import_module('dqops.client.models')
    types = importlib.import_module('dqops.client.types')
    return {**vars(typing), **vars(types), **vars(models), 'datetime': datetime}


def sample(annotation, name, depth=0):
    """A value of a type the client declares: primitives, enums, lists, and attrs models (required fields only)."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Union:
        real = [a for a in args if a is not type(None) and getattr(a, '__name__', '') != 'Unset']
        return sample(real[0], name, depth) if real else None
    if origin in (list, typing.List):
        return []
    if origin in (dict, typing.Dict):
        return {}
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return enum_value(annotation, name)
    if annotation is str:
        return 'x'
    if annotation is bool:
        return False
    if annotation is int:
        return 1
    if annotation is float:
        return 1.0
    if annotation is datetime.datetime:
        return datetime.datetime(2025, 1, 1, tzinfo=datetime.timezone.utc)
    if hasattr(annotation, 'from_dict') and depth < 4:
        import attr
        hints = typing.get_type_hints(annotation, globalns=model_namespace())
        kwargs = {}
        for field in attr.fields(annotation):
            if field.default is attr.NOTHING and field.name != 'additional_properties':
                kwargs[field.name] = sample(hints.get(field.name, str), field.name, depth + 1)
        return annotation(**kwargs)
    return None


def body_for(op, annotation, client, modules):
    """Realistic bodies where a made-up one would be refused for good reason; else the model's required fields."""
    from dqops.client import models
    if op == 'create_connection':
        return models.ConnectionSpec.from_dict({'provider_type': 'postgresql', 'postgresql': {'host': '127.0.0.1', 'port': '5432', 'database': 'postgres', 'user': 'postgres'}})
    if op == 'create_connection_basic' or op == 'update_connection_basic':
        # what a client does: read the model dqctl serves, change it, send it back (job templates included)
        served = modules['connections.get_connection_basic'].sync(connection_name='shop_oltp', client=client)
        data = served.to_dict()
        data['connection_name'] = THROWAWAY_OF_OPERATION[op]['connection_name'] if op.startswith('create') else 'shop_oltp'
        return models.ConnectionModel.from_dict(data)
    if op == 'create_table':
        return models.TableSpec.from_dict({'timestamp_columns': {'event_timestamp_column': 'ordered_at'}})
    if op == 'create_column':
        return models.ColumnSpec.from_dict({'type_snapshot': {'column_type': 'text', 'nullable': True}})
    # updates send back what a read gave, as a program that edits one field does
    round_trips = {
        'update_table': ('tables.get_table', lambda r: r.spec),
        'update_connection': ('connections.get_connection', lambda r: r.spec),
        'update_column': ('columns.get_column', lambda r: r.spec),
        'update_table_quality_policy': ('table_quality_policies.get_table_quality_policy', lambda r: r),
        'update_column_quality_policy': ('column_quality_policies.get_column_quality_policy', lambda r: r),
        'update_table_quality_policy_target': ('table_quality_policies.get_table_quality_policy_target', lambda r: r),
        'update_column_quality_policy_target': ('column_quality_policies.get_column_quality_policy_target', lambda r: r),
        'update_default_table_checks_pattern': ('default_table_check_patterns.get_default_table_checks_pattern', lambda r: r),
        'update_default_column_checks_pattern': ('default_column_check_patterns.get_default_column_checks_pattern', lambda r: r),
        'update_default_table_checks_pattern_target': ('default_table_check_patterns.get_default_table_checks_pattern_target', lambda r: r),
        'update_default_column_checks_pattern_target': ('default_column_check_patterns.get_default_column_checks_pattern_target', lambda r: r),
        'update_rule': ('rules.get_rule', lambda r: r),
        'update_connection_incident_grouping': ('connections.get_connection_incident_grouping', lambda r: r),
        # the defaults' PUT replaces the whole spec (filtered notifications too), as DQOps's does: write back what was read
        'update_default_webhooks': ('defaults.get_default_webhooks', lambda r: r),
        'update_connection_default_grouping_configuration': ('connections.get_connection_default_grouping_configuration', lambda r: r),
        'update_sensor': ('sensors.get_sensor', lambda r: r),
        'update_check': ('checks.get_check', lambda r: r),
        'update_dictionary': ('dictionaries.get_dictionary', lambda r: r),
    }
    if op in round_trips and round_trips[op][0] in modules:
        getter, pick = round_trips[op]
        module = modules[getter]
        params = {n: FIXTURE[n] for n in inspect.signature(module.sync_detailed).parameters if n in FIXTURE}
        params.update({n: v for n, v in THROWAWAY_OF_OPERATION.get(op, {}).items() if n in params})
        if getter.startswith('column_quality_policies') or getter.startswith('default_column_check_patterns'):
            params['pattern_name'] = GROUP_FIXTURE['column_quality_policies']['pattern_name']
        read = module.sync_detailed(client=client, **params).parsed
        if read is not None:
            return pick(read)
    if op in ('create_table_quality_policy_pattern', 'create_column_quality_policy'):
        spec = {'priority': 500, 'monitoring_checks': {'daily': {'volume': {'daily_row_count': {'warning': {'min_count': 1}}}}}} if 'table' in op else \
            {'priority': 500, 'monitoring_checks': {'daily': {'nulls': {'daily_nulls_count': {'warning': {'max_count': 0}}}}}}
        model = models.TableQualityPolicyModel if 'table' in op else models.ColumnQualityPolicyModel
        return model.from_dict({'policy_name': THROWAWAY['pattern_name'], 'policy_spec': spec})
    if op in ('create_default_table_checks_pattern', 'create_default_column_checks_pattern'):
        spec = {'priority': 500, 'monitoring_checks': {'daily': {'volume': {'daily_row_count': {'warning': {'min_count': 1}}}}}} if 'table' in op else \
            {'priority': 500, 'monitoring_checks': {'daily': {'nulls': {'daily_nulls_count': {'warning': {'max_count': 0}}}}}}
        model = models.DefaultTableChecksPatternModel if 'table' in op else models.DefaultColumnChecksPatternModel
        return model.from_dict({'pattern_name': THROWAWAY['pattern_name'], 'pattern_spec': spec})
    if op == 'collect_statistics_on_table':
        served = modules['connections.get_connection_basic'].sync(connection_name='shop_oltp', client=client)
        filters = served.collect_statistics_job_template.to_dict()
        filters['fullTableName'] = 'public.orders'
        return models.StatisticsCollectorSearchFilters.from_dict(filters)
    if op == 'create_table_grouping_configuration':
        return models.DataGroupingConfigurationTrimmedModel.from_dict(
            {'data_grouping_configuration_name': THROWAWAY['data_grouping_configuration_name'], 'spec': {'level_1': {'source': 'column_value', 'column': 'order_status'}}})
    if op in ('update_table_default_grouping_configuration', 'update_connection_default_grouping_configuration'):
        # an empty grouping is no grouping: dqctl stores {} as nothing (README: normalized specs)
        return models.DataGroupingConfigurationSpec.from_dict({'level_1': {'source': 'column_value', 'column': 'order_status'}})
    if op == 'update_table_grouping_configuration':
        return models.DataGroupingConfigurationTrimmedModel.from_dict(
            {'data_grouping_configuration_name': 'client_grouping', 'spec': {'level_1': {'source': 'column_value', 'column': 'order_status'}}})
    if op == 'create_table_comparison_configuration' or op.startswith('create_table_comparison_'):
        container = op[len('create_table_comparison_'):]
        name = THROWAWAY['table_comparison_configuration_name'] + ('' if container == 'configuration' else f'_{container}')
        body = {'table_comparison_configuration_name': name, 'reference_connection': 'shop_oltp',
                'reference_table': {'schema_name': 'public', 'table_name': 'orders'},
                'grouping_columns': [{'compared_table_column_name': 'order_status', 'reference_table_column_name': 'order_status'}]}
        if container == 'configuration':
            return models.TableComparisonConfigurationModel.from_dict(body)
        body['compare_row_count'] = {'warning_difference_percent': 0.0, 'error_difference_percent': 1.0}
        return models.TableComparisonModel.from_dict(body)
    if op.startswith('update_table_comparison_'):
        container = op[len('update_table_comparison_'):]
        getter = 'get_table_comparison_configuration' if container == 'configuration' else f'get_table_comparison_{container}'
        module = modules.get(f'table_comparisons.{getter}')
        if module is not None:
            fixture = GROUP_FIXTURE['table_comparisons']
            read = module.sync_detailed(client=client, connection_name=fixture['connection_name'], schema_name=fixture['schema_name'],
                                        table_name=fixture['table_name'], table_comparison_configuration_name=fixture['table_comparison_configuration_name']).parsed
            if read is not None:
                return read
    if op.endswith('_filtered_notification_configuration') and (op.startswith('create_') or op.startswith('update_')):
        # a filtered notification is named in its body (DQOps's model leaves the name optional)
        return models.FilteredNotificationModel.from_dict({
            'name': FIXTURE['filtered_notification_name'], 'priority': 100, 'filter': {'table': 'orders', 'highest_severity': 3},
            'target': {'incident_opened_addresses': 'https://hooks.example.com/dq'}, 'message': 'from the client check'})
    if op == 'create_sensor':
        template = ('{% import \'/dialects/postgresql.sql.jinja2\' as lib with context -%}\n'
                    'SELECT\n    COUNT(*) AS actual_value\nFROM {{ lib.render_target_table() }} AS analyzed_table\n')
        return models.SensorModel.from_dict({
            'full_sensor_name': THROWAWAY['full_sensor_name'],
            'sensor_definition_spec': {'fields': [{'field_name': 'floor', 'data_type': 'integer'}]},
            'provider_sensor_list': [{'provider_type': 'postgresql', 'provider_sensor_definition_spec': {'type': 'sql_template'}, 'sql_template': template}]})
    if op == 'create_check':
        return models.CheckDefinitionModel.from_dict({
            'check_name': THROWAWAY['full_check_name'].split('/')[-1], 'sensor_name': 'table/volume/row_count', 'rule_name': 'comparison/min_count',
            'help_text': 'from the client check'})
    if op == 'create_dictionary':
        return models.DataDictionaryModel.from_dict({'dictionary_name': FIXTURE['dictionary_name'], 'file_content': 'paid\nshipped\n'})
    if op == 'import_tables':
        return models.ImportTablesQueueJobParameters.from_dict({'connectionName': 'shop_oltp', 'schemaName': 'public', 'tableNames': ['orders']})
    if op == 'delete_stored_data':
        return models.DeleteStoredDataQueueJobParameters.from_dict(
            {'connection': 'shop_oltp', 'fullTableName': 'public.shipments', 'deleteStatistics': True})
    if op == 'run_checks':
        served = modules['connections.get_connection_basic'].sync(connection_name='shop_oltp', client=client)
        filters = served.run_checks_job_template.to_dict()
        filters['fullTableName'] = 'public.orders'
        return models.RunChecksParameters.from_dict({'check_search_filters': filters})
    return sample(annotation, 'json_body')


JOB_ID = ['1']
JOB_ID_OF_KIND = {}
JOB_OF_OPERATION = {'wait_for_run_checks_job': 'run_checks', 'wait_for_collect_error_samples_job': 'collect_error_samples'}


def real_incident(client):
    """An incident the demo's failures opened (its connection, month and id), for the incidents operations."""
    response = client.get_httpx_client().get('/api/incidents/shop_oltp', params={'months': 36, 'limit': 1})
    try:
        incident = json.loads(response.content)[0]
        return {'incident_id': incident['incidentId'], 'year': incident['year'], 'month': incident['month']}
    except (ValueError, KeyError, TypeError, IndexError):
        return {}


def first_job_id(client):
    """A real job to read, wait for and cancel: a statistics collection on the fixture table."""
    from dqops.client import models
    collect = importlib.import_module('dqops.client.api.jobs.collect_statistics_on_table')
    filters = models.StatisticsCollectorSearchFilters.from_dict({'connection': 'shop_oltp', 'fullTableName': 'public.orders', 'enabled': True})
    response = collect.sync_detailed(client=client, json_body=filters, wait=False)
    try:
        return str(json.loads(response.content)['jobId']['jobId'])
    except (ValueError, KeyError, TypeError):
        return '1'


def other_job_ids(client):
    """A run-checks job and an error-samples job, for the operations that wait for one of that kind."""
    from dqops.client import models
    found = {}
    run = importlib.import_module('dqops.client.api.jobs.run_checks')
    filters = {'connection': 'shop_oltp', 'fullTableName': 'public.shipments', 'enabled': True}
    response = run.sync_detailed(client=client, json_body=models.RunChecksParameters.from_dict({'check_search_filters': filters}), wait=False)
    samples = importlib.import_module('dqops.client.api.jobs.collect_error_samples')
    response2 = samples.sync_detailed(client=client, json_body=models.CollectErrorSamplesParameters.from_dict({'check_search_filters': filters}), wait=False)
    for kind, answer in (('run_checks', response), ('collect_error_samples', response2)):
        try:
            found[kind] = str(json.loads(answer.content)['jobId']['jobId'])
        except (ValueError, KeyError, TypeError):
            pass
    return found


def discover(client_dir, only):
    sys.path.insert(0, client_dir)
    api = importlib.import_module('dqops.client.api')
    found = []
    for group in pkgutil.iter_modules(api.__path__):
        if only and group.name not in only:
            continue
        package = importlib.import_module(f'dqops.client.api.{group.name}')
        for op in pkgutil.iter_modules(package.__path__):
            found.append((group.name, op.name, importlib.import_module(f'dqops.client.api.{group.name}.{op.name}')))
    return found


def is_error_body(response):
    try:
        body = json.loads(response.content)
    except ValueError:
        return False
    return isinstance(body, dict) and {'timestamp', 'status', 'error', 'code', 'message', 'path'} <= set(body)


def call(group, op, module, client, modules):
    url, last = last_path_param(module)
    signature = inspect.signature(module.sync_detailed)
    hints = typing.get_type_hints(module.sync_detailed, globalns={**model_namespace(), **vars(module)})
    kwargs = {'client': client}
    for name, parameter in signature.parameters.items():
        if name == 'client':
            continue
        if name == 'json_body':
            kwargs[name] = body_for(op, hints.get(name), client, modules)
            continue
        if parameter.default is not inspect.Parameter.empty:
            if name == 'wait_timeout':
                kwargs[name] = 30
            continue
        value = GROUP_FIXTURE.get(group, {}).get(name, FIXTURE.get(name))
        if name == 'job_id':
            value = JOB_ID[0]
        if phase_of(op) in (0, 3) and name == last and name in THROWAWAY:
            value = THROWAWAY[name]
        if name in THROWAWAY_OF_OPERATION.get(op, {}):
            value = THROWAWAY_OF_OPERATION[op][name]
        if name == 'job_id' and op in JOB_OF_OPERATION:
            value = JOB_ID_OF_KIND.get(JOB_OF_OPERATION[op], value)
        annotation = hints.get(name)
        if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
            value = enum_value(annotation, name) if value is None else annotation(value) if value in [m.value for m in annotation] else enum_value(annotation, name)
        kwargs[name] = value if value is not None else sample(annotation, name)
    if op.endswith('_download') or op == 'download_dictionary':
        # the spec (and DQOps's server) answer CSV; the generated client parses every answer as JSON, a defect of
        # the client: call the same request and check the CSV
        request = module._get_kwargs(**{k: v for k, v in kwargs.items() if k != 'client'})
        raw = client.get_httpx_client().request(**request)
        if raw.status_code == 200 and raw.headers.get('content-type', '').startswith('text/csv'):
            return 'works', '200 text/csv (the client cannot parse CSV)'
        return 'fails', f'{raw.status_code} {raw.headers.get("content-type")}: {raw.text[:200]}'
    response = module.sync_detailed(**kwargs)
    status = int(response.status_code)
    returns = str(hints.get('return', ''))
    expects_model = 'Response[Any]' not in returns and "typing.Any" not in returns
    if 200 <= status < 300:
        if status == 200 and expects_model and response.content and response.parsed is None:
            return 'fails', f'{status}: the answer did not parse into {returns}'
        return 'works', str(status)
    if (group in UNSERVED_GROUPS or op in UNSERVED_OPERATIONS) and status in (404, 501) and is_error_body(response):
        return 'refused', str(status)
    text = response.content.decode('utf-8', 'replace')[:300]
    return 'fails', f'{status} {text}'


def remove_leftovers(client):
    """The policies the creates made under names no delete operation takes (a copy, a target-only create), so that
    a second run, or a run of another release's client, finds the names free."""
    from urllib.parse import quote
    http = client.get_httpx_client()
    for family in ('/api/policies/checks/table', '/api/policies/checks/column'):
        for name in (THROWAWAY['target_pattern_name'], THROWAWAY_OF_OPERATION['create_table_quality_policy_target']['pattern_name']):
            http.request('DELETE', f"{family}/{quote(name, safe='')}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--client', required=True, help='folder holding the dqops package (distribution/python)')
    parser.add_argument('--base-url', default='http://127.0.0.1:8888')
    parser.add_argument('--token', default=None)
    parser.add_argument('--only', default='', help='comma-separated groups')
    parser.add_argument('--json', action='store_true')
    options = parser.parse_args()
    operations = discover(options.client, set(filter(None, options.only.split(','))))
    from dqops.client import AuthenticatedClient, Client
    client = (AuthenticatedClient(base_url=options.base_url, token=options.token) if options.token
              else Client(base_url=options.base_url, timeout=120.0))
    # the client's "authenticated" signatures accept a plain Client at run time
    modules = {f'{g}.{o}': m for g, o, m in operations}
    if 'connections.get_connection_basic' not in modules:
        modules['connections.get_connection_basic'] = importlib.import_module('dqops.client.api.connections.get_connection_basic')
    FIXTURE.update(real_incident(client))
    JOB_ID[0] = first_job_id(client)
    JOB_ID_OF_KIND.update(other_job_ids(client))
    ordered = sorted(operations, key=lambda item: (phase_of(item[1]), 0 if item[1].endswith('connection') else 1, item[0], item[1]))
    # deletes: children before parents
    ordered = [o for o in ordered if phase_of(o[1]) != 3] + sorted(
        [o for o in ordered if phase_of(o[1]) == 3], key=lambda item: (item[1] in ('delete_connection',), item[1] == 'delete_table', item[0], item[1]))
    results = []
    for group, op, module in ordered:
        try:
            outcome, detail = call(group, op, module, client, modules)
        except Exception as error:  # the client raised: a parse failure or a refused request shape
            outcome, detail = 'fails', f'{type(error).__name__}: {error}'.strip()[:300]
            if '--trace' in sys.argv:
                traceback.print_exc()
        results.append({'group': group, 'operation': op, 'outcome': outcome, 'detail': detail, 'served': group not in UNSERVED_GROUPS and op not in UNSERVED_OPERATIONS})
    remove_leftovers(client)
    counts = {k: sum(1 for r in results if r['outcome'] == k) for k in ('works', 'refused', 'fails')}
    if options.json:
        print(json.dumps({'operations': len(results), **counts, 'results': results}, indent=1))
    else:
        for r in results:
            if r['outcome'] == 'fails':
                print(f"FAIL {r['group']}.{r['operation']}: {r['detail']}")
        print(f"{len(results)} operations: {counts['works']} work, {counts['refused']} refused as not served (404/501 with the error body), {counts['fails']} fail")
    sys.exit(1 if any(r['outcome'] == 'fails' and r['served'] for r in results) else 0)


if __name__ == '__main__':
    main()
