/**
 * Policies and the check models of the API: which checks apply to a table or a column (its own and those of
 * the matching policies), and the DQOps-shaped JSON models built from them. Pure: values in, values out.
 */
export * from './namePattern.js';
export * from './dataTypeCategory.js';
export * from './subjects.js';
export * from './checkOrigin.js';
export * from './checkSlots.js';
export * from './compilePolicies.js';
export * from './effectiveChecks.js';
export * from './comparisonChecks.js';
export * from './fieldModel.js';
export * from './sensorCapabilities.js';
export * from './checkModel.js';
export * from './checkContainerModel.js';
export * from './applyCheckContainerModel.js';
export * from './checkConfigurationModels.js';
export * from './checkTemplates.js';
export * from './dataGrouping.js';
export * from './dqops17Models.js';
