/**
 * The layout's rules (docs/architecture.md), checked by `npm run check` and CI:
 * a folder says where its code runs, and data flows one way.
 * @type {import('dependency-cruiser').IConfiguration}
 */
const ORCHESTRATOR = '^src/(agent-client|rollout|cli|balancer|verify|setup|hooks|secrets|aws)/';
/** a balancer kind's config: its deploy.yml shape, normalisation, serialisation and rules */
const KIND_CONFIG = '^src/balancer/[^/]+/config/';
const IO =
  '^(node:)?(fs|fs/promises|child_process|net|http|https|http2|dgram|dns|tls|worker_threads|cluster)$';

export default {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import circles, type-only ones included: a circle hides which idea owns which.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-circular-folders',
      severity: 'error',
      scope: 'folder',
      comment:
        'No import circles between folders either: one folder uses another, never both ways round (docs/architecture.md says which way each goes).',
      from: {},
      to: { circular: true },
    },
    {
      name: 'host-code-imports-no-orchestrator',
      severity: 'error',
      comment:
        'src/host/ and src/watchdog/ run on hosts (the agent bundle, cron): they must not pull in the orchestrator (agent-client, rollout, cli, balancer, verify, setup, hooks, secrets, aws).',
      from: { path: '^src/(host|watchdog)/' },
      to: { path: ORCHESTRATOR },
    },
    {
      name: 'health-is-self-contained',
      severity: 'error',
      comment:
        'src/health/ is a library that services import: nothing of handoff but itself, the clock and the hysteresis strategy (pure; one strategy serves the watchdog, verify and the library).',
      from: { path: '^src/health/' },
      to: { path: '^src/', pathNot: '^src/(health/|hysteresis/|clock[.]ts$)' },
    },
    {
      name: 'pure-folders-do-no-io',
      severity: 'error',
      comment:
        "The timing model (a balancer kind's own invariants included), the hysteresis strategy, the rollout plan and the handshake lists are pure: no I/O module, no side-effect interface.",
      from: {
        path: '^src/(timing|hysteresis)/|^src/balancer/[^/]+/invariants[.]ts$|^src/rollout/plan[.]ts$|^src/rollout/handshake/(lists|plan-steps)[.]ts$',
      },
      to: {
        path: [IO, '^src/(remote|agent-client)/', '^(ssh2|execa|proper-lockfile|@aws-sdk/)'],
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'below-cli-imports-no-cli',
      severity: 'error',
      comment: 'Data flows from cli down: nothing below cli imports it (it prints and exits).',
      from: { path: '^src/', pathNot: '^src/cli/' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'protocol-and-config-import-no-orchestrator',
      severity: 'error',
      comment:
        'config/ and the agent protocol are shared by the orchestrator and the hosts: they import neither side.',
      from: { path: '^src/(config|protocol)/' },
      to: { path: [ORCHESTRATOR, '^src/host/'], pathNot: KIND_CONFIG },
    },
    {
      name: 'kind-config-is-loaded-everywhere',
      severity: 'error',
      comment:
        "A balancer kind's config (src/balancer/<kind>/config/) is listed by config/ and so loaded wherever config is (hosts included): it imports nothing of handoff but config's kit (config/kit/, below config/ and the kinds) and src/errors.ts.",
      from: { path: KIND_CONFIG },
      to: { path: '^src/', pathNot: [KIND_CONFIG, '^src/config/kit/', '^src/errors[.]ts$'] },
    },
    {
      name: 'only-the-registries-import-a-kind',
      severity: 'error',
      comment:
        "A balancer kind is its folder (src/balancer/<kind>/): the rest of the program asks the kind through its registry (balancer/kinds.ts for what it does, config/balancer-kinds.ts for its deploy.yml entry), never a file of the folder. docs/architecture.md, 'Adding a balancer kind'.",
      from: {
        path: '^src/',
        pathNot: [
          '^src/balancer/kinds[.]ts$',
          '^src/config/balancer-kinds[.]ts$',
          '^src/balancer/[^/]+/',
        ],
      },
      to: { path: '^src/balancer/[^/]+/' },
    },
    {
      name: 'kind-folders-import-no-other-kind',
      severity: 'error',
      comment:
        "A balancer kind's folder imports no other kind's: what two kinds share lives in src/balancer/ (or below it, config/kit/, evidence/kit/), beside the interface they both give.",
      from: { path: '^src/balancer/([^/]+)/' },
      to: { path: '^src/balancer/[^/]+/', pathNot: '^src/balancer/$1/' },
    },
    {
      name: 'config-kit-is-below-config',
      severity: 'error',
      comment:
        "config/kit/ is what config/ and the kinds' configs are both built from: it imports neither (nothing of handoff but itself and src/errors.ts).",
      from: { path: '^src/config/kit/' },
      to: { path: '^src/', pathNot: ['^src/config/kit/', '^src/errors[.]ts$'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.d.ts'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
