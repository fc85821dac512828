/**
 * The output edge of `pds`: whatever a command's text view is made of, runCli escapes it once on its
 * way to the terminal. Here the text views of `bridge confirmations` and `bridge why PUBLICATION`
 * (partner-written CIC states, reasons, corrective actions and the GLNs of resend requests) run through
 * runCli as a command's result; the live commands with their own data (deliveries, why's ZIP member
 * names) are in test/integration/cli-terminal-output.test.ts. And `pds bridge webhooks --help` works.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Command } from '../../packages/cli/src/command.ts';
import { confirmationsText, explanationText } from '../../packages/cli/src/commands/bridge-text.ts';
import { COMMANDS } from '../../packages/cli/src/commands/index.ts';
import { runCli } from '../../packages/cli/src/main.ts';
import type { ConfirmationRow, ConfirmationsAnswer } from '../../packages/cli/src/ops/confirmations.ts';
import { capturingIo } from '../helpers/cli-io.ts';

const ESCAPES = '\u001b]0;owned\u0007\u001b[2J\u009b31m\u202e\r';
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

const HOSTILE_ROW: ConfirmationRow = {
  primaryKey: `KEY${ESCAPES}`,
  channelId: 'gdsn-de',
  recipientGln: `0614141${ESCAPES}`,
  targetMarket: '276',
  state: `SYNCHRONISED${ESCAPES}`,
  since: '2026-12-01T00:00:00.000Z',
  deadline: '2026-12-02T00:00:00.000Z',
  correctiveActions: [`CIC999: fix it${ESCAPES}`],
  reason: `GDSN.1091: ${ESCAPES}`,
  publications: ['pub-1'],
  resendRequests: [`messaging asset 601 (recipient 0614141${ESCAPES}) → republication pub-2`],
};

const ANSWER: ConfirmationsAnswer = {
  query: { publicationId: 'pub-1' },
  publicationStatus: 'published',
  summary: { [`SYNCHRONISED${ESCAPES}`]: 1 },
  rows: [HOSTILE_ROW],
  truncated: false,
};

function ttyIo() {
  const run = capturingIo({ tty: true });
  return { io: run.io, out: run.stdout, err: run.stderr };
}

/** Runs `text` as the terminal view of a command's result through runCli. */
async function shownByRunCli(text: () => string): Promise<string> {
  const command: Command = {
    name: 'test-edge',
    summary: 'a result as a command returns it',
    args: '',
    minArgs: 0,
    maxArgs: 0,
    examples: ['pds test-edge'],
    run: async () => ({ data: {}, text }),
  };
  const table = COMMANDS as Command[];
  table.push(command);
  try {
    const { io, out } = ttyIo();
    expect(await runCli(['test-edge'], io)).toBe(0);
    return out();
  } finally {
    table.splice(table.indexOf(command), 1);
  }
}

afterEach(() => {
  expect(COMMANDS.some((command) => command.name === 'test-edge')).toBe(false);
});

describe('the output edge of pds', () => {
  it('bridge confirmations: CIC states, reasons, corrective actions and GLNs reach the terminal escaped', async () => {
    // act
    const shown = await shownByRunCli(() => confirmationsText(ANSWER));

    // assess
    expect(shown).not.toMatch(RAW_CONTROL);
    expect(shown).toContain('SYNCHRONISED\\u001b]0;owned\\u0007\\u001b[2J\\u009b31m\\u202e\\r');
    expect(shown).toContain('0614141\\u001b]0;owned');
  });

  it('bridge why PUBLICATION: the resend requests with their recipient GLNs reach the terminal escaped', async () => {
    // act
    const shown = await shownByRunCli(() =>
      explanationText({
        kind: 'publication',
        publicationId: 'pub-1',
        found: true,
        status: 'published',
        events: [],
        next: 'nothing to do',
        confirmations: ANSWER,
      } as unknown as Parameters<typeof explanationText>[0]),
    );

    // assess
    expect(shown).toContain('resend requests:');
    expect(shown).toContain('(recipient 0614141\\u001b]0;owned');
    expect(shown).not.toMatch(RAW_CONTROL);
  });

  it('an error message quoting outside input is escaped on stderr too', async () => {
    // prepare
    const { io, err } = ttyIo();

    // act
    await runCli([`nope${ESCAPES}`], io);

    // assess
    expect(err()).toContain('nope\\u001b]0;owned');
    expect(err()).not.toMatch(RAW_CONTROL);
  });
});

describe('pds bridge webhooks', () => {
  it('--help lists the subcommands of the group docs/cli.md names', async () => {
    // prepare
    const { io, out } = ttyIo();

    // act
    const code = await runCli(['bridge', 'webhooks', '--help'], io);

    // assess
    expect(code).toBe(0);
    expect(out()).toContain('Usage: pds bridge webhooks SUBCOMMAND');
    for (const verb of ['create', 'list', 'show', 'rotate', 'delete', 'replay', 'public-key']) {
      expect(out()).toContain(`bridge webhooks ${verb}`);
    }
  });

  it('without a subcommand, or with an unknown one, names the closest and the valid ones', async () => {
    // prepare
    const missing = ttyIo();
    const unknown = ttyIo();

    // act
    const codes = [
      await runCli(['bridge', 'webhooks'], missing.io),
      await runCli(['bridge', 'webhooks', 'lst'], unknown.io),
    ];

    // assess
    expect(codes).toEqual([2, 2]);
    expect(missing.err()).toContain("'pds bridge webhooks' needs a subcommand; use one of create, list");
    expect(unknown.err()).toContain("did you mean 'pds bridge webhooks list'?");
  });
});
