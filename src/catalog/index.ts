/** The built-in check catalog and the name helpers built on it. */
export * from './catalogTypes.js';
export * from './checkContainers.js';
export * from './checkCatalog.js';
export * from './didYouMean.js';
export * from './packagePaths.js';
export * from './qualityDimensions.js';
