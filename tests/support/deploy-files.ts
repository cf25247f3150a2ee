/** The deployment files of deploy/ as the tests use them (the demo's replicas own the helpers). */
export * from '../../demo/src/deploy-files.js';
