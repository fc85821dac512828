/**
 * The doc commands test/integration/docs-commands.test.ts does not run, each with why. A command of
 * README.md or docs/*.md that no rule here matches is run against a local stack the test starts, and
 * must exit 0. To skip a new command, add a rule (the first rule that matches decides) with a reason a
 * reviewer can check; prefer making the command runnable as written.
 */
export interface SkipRule {
  /** Matched against the command as written (continuation lines joined with a line feed). */
  readonly match: RegExp;
  readonly reason: string;
}

export const DOC_COMMAND_SKIPS: readonly SkipRule[] = [
  {
    match: /<[^>]+>|…|\.\.\./,
    reason: 'a placeholder (<…>, …, ...) stands for a value of your own',
  },
  {
    // A SigV4 call to the local API (127.0.0.1 on the same line) runs: the local stack verifies it.
    match: /--stage (?!local\b)|-prod\b|--region |execute-api(?![^\n]*127\.0\.0\.1)/,
    reason: 'needs a deployed stage in AWS',
  },
  {
    match: /^(npx osls|aws |cfn-lint|git )|^AWS_[A-Z_]+=\S+ .*\n\s*aws /,
    reason: 'needs AWS, an AWS CLI or a release checkout',
  },
  {
    match: /^(empty_bucket|while |done$|\}$|\[ |batch=)/,
    reason: "a line of deployment.md's empty_bucket shell function: it deletes a deployed bucket's objects",
  },
  { match: /^rm /, reason: 'deletes the file the step before created for a deployment' },
  { match: /^npm (ci|install)\b/, reason: 'installs the dependencies: CI does it before the tests' },
  { match: /^npm test\b/, reason: 'runs the whole suite, this test included' },
  {
    match: /^([A-Z_]+=\S* )*npm start\b/,
    reason: 'long-running (until Ctrl-C); this test starts a stack of its own',
  },
  {
    match: /^npm run demo\b/,
    reason: 'starts a stack of its own for a minute: test/integration/local-stack-cli.test.ts runs the demo',
  },
  {
    match: /^npm run (build|package)\b/,
    reason:
      'bundles every function (minutes): test/unit/bundle-boundaries.test.ts and the serverless tests build them',
  },
  {
    match: /^npm run (-s )?events\b/,
    reason: 'reads the queues until Ctrl-C (or --count events): long-running',
  },
  {
    match: /^npm run drop\b/,
    reason:
      "npm scripts run at the checkout's root and use its .local/stack.json, not the stack this test starts: test/integration/local-drop-warnings.test.ts runs drop",
  },
  {
    match: /^moto_server\b/,
    reason: 'starts moto in the background: local-eventbridge-moto.test.ts covers --eventbridge',
  },
  {
    match: /"\$SECRET" \| pds/,
    reason: "needs your PDS user's password in $SECRET",
  },
];

/**
 * The rule that skips `command`, or undefined when it runs.
 *
 * @example
 * ```ts
 * skipOf('npm test')?.reason; // 'runs the whole suite, this test included'
 * ```
 */
export function skipOf(command: string): SkipRule | undefined {
  return DOC_COMMAND_SKIPS.find((rule) => rule.match.test(command));
}
