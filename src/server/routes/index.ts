import type { FastifyInstance } from 'fastify';
import type { ServerContext } from '../context.js';
import { checkDefinitionsRoutes } from './checkDefinitions.js';
import { checkResultsRoutes } from './checkResults.js';
import { checksBulkRoutes } from './checksBulk.js';
import { columnPartsRoutes } from './columnParts.js';
import { connectionsRoutes } from './connections.js';
import { dataGroupingsRoutes } from './dataGroupings.js';
import { dataSourcesRoutes } from './dataSources.js';
import { defaultSchedulesRoutes } from './defaultSchedules.js';
import { dictionariesRoutes } from './dictionaries.js';
import { gitopsRoutes } from './gitops.js';
import { gitopsReadRoutes } from './gitopsReads.js';
import { gitopsStatusRoutes } from './gitopsStatus.js';
import { healthRoutes } from './health.js';
import { filteredNotificationsRoutes } from './filteredNotifications.js';
import { incidentsRoutes } from './incidents.js';
import { instanceRoutes } from './instance.js';
import { columnPoliciesRoutes } from './columnPolicies.js';
import { jobsRoutes } from './jobs.js';
import { lineageRoutes } from './lineage.js';
import { notServedRoutes } from './notServed.js';
import { overviewRoutes } from './overview.js';
import { resultsRoutes } from './results.js';
import { rulesRoutes } from './rules.js';
import { schemasRoutes } from './schemas.js';
import { sensorsRoutes } from './sensors.js';
import { statisticsRoutes } from './statistics.js';
import { tablePoliciesRoutes } from './tablePolicies.js';
import { tableChecksRoutes } from './tableChecks.js';
import { tableComparisonsRoutes } from './tableComparisons.js';
import { tableExtrasRoutes } from './tableExtras.js';
import { tableSettingsRoutes } from './tableSettings.js';
import { tablesRoutes } from './tables.js';

/** One file per resource group; each exports a function that registers its routes under /api. */
export type RouteGroup = (api: FastifyInstance, context: ServerContext) => Promise<void> | void;

export const ROUTE_GROUPS: RouteGroup[] = [
  rulesRoutes,
  sensorsRoutes,
  checkDefinitionsRoutes,
  dictionariesRoutes,
  tablePoliciesRoutes,
  columnPoliciesRoutes,
  tablesRoutes,
  lineageRoutes,
  connectionsRoutes,
  schemasRoutes,
  checksBulkRoutes,
  resultsRoutes,
  incidentsRoutes,
  filteredNotificationsRoutes,
  statisticsRoutes,
  jobsRoutes,
  tableChecksRoutes,
  gitopsRoutes,
  gitopsStatusRoutes,
  gitopsReadRoutes,
  healthRoutes,
  columnPartsRoutes,
  checkResultsRoutes,
  dataGroupingsRoutes,
  dataSourcesRoutes,
  defaultSchedulesRoutes,
  instanceRoutes,
  tableComparisonsRoutes,
  tableExtrasRoutes,
  tableSettingsRoutes,
  overviewRoutes,
  notServedRoutes,
];
