// The local osls plugin serverless.yml names; Node 24 strips the TypeScript types of the imported module.
export { DeployChecks as default } from './checks.ts';
