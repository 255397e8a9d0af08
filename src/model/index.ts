export * from './objectKind.js';
export * from './json.js';
export * from './diagnostic.js';
export * from './objects.js';
export * from './errors.js';
export * from './progress.js';
