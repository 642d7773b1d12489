// Regenerates docs/rules.md from the built registry (`npm run build` first):
//   node scripts/generate-rules-doc.mjs
// The per-rule sections come from listRules(); the closing sections are kept in this script.
import { writeFileSync } from 'node:fs';
import { createEngine } from '../dist/index.js';

const EXAMPLE_PARAMETERS = { 'R-132': { blacklistId: 'internal-blacklist' } };
const engine = createEngine();
// Flagright's R-<n> first, then txmon's own TXM-<n>, each by number.
const order = (id) => {
  const [prefix, n] = id.split('-');
  return [prefix === 'R' ? 0 : 1, Number(n)];
};
const rules = (await engine.listRules()).sort((a, b) => {
  const [pa, na] = order(a.id);
  const [pb, nb] = order(b.id);
  return pa - pb || na - nb;
});

const out = [];
out.push('# Rules', '');
out.push(
  'The rules (templates) txmon ships — generated from the registry (`listRules()`) by `node scripts/generate-rules-doc.mjs`. Each is instantiated with',
  '`createRuleInstance({ ruleId, parameters })`; `parameters` are merged over the defaults and validated against the',
  "rule's `parametersSchema` (`getRule(id)`). Windows are closed intervals [start, end] ending at the transaction's",
  'timestamp (docs/windows-and-series.md). Comparators are as each description says (`>` vs `≥`). Every stateful rule accepts',
  'historical filters (see the end of this page). Type `USER` rules run on user creation and user events, never on a',
  'transaction (see "User rules" at the end of this page); the others (`TRANSACTION`) run on transactions and their events.',
  '',
);
out.push('| id | name | type | default action / nature | stateful |', '|---|---|---|---|---|');
for (const r of rules) out.push(`| ${r.id} | ${r.name} | ${r.type} | ${r.defaultAction} / ${r.defaultNature} | ${r.stateful ? 'yes' : 'no'} |`);
out.push('');
for (const r of rules) {
  out.push(`## ${r.id} — ${r.name}`, '', r.description, '');
  out.push(
    `- type: \`${r.type}\`; default action / nature: \`${r.defaultAction}\` / \`${r.defaultNature}\`; stateful: ${r.stateful ? 'yes (windowed aggregates)' : 'no'}`,
  );
  out.push(`- description on a hit: \`${r.descriptionTemplate}\``);
  const props = r.parametersSchema?.properties ?? {};
  const required = new Set(r.parametersSchema?.required ?? []);
  const names = Object.keys(props);
  if (names.length === 0) out.push('- parameters: none');
  else {
    out.push('- parameters:');
    for (const n of names) out.push(`  - \`${n}\` (${required.has(n) ? 'required' : 'optional'}): ${props[n].description ?? props[n].title ?? ''}`);
  }
  // Rules whose parameters have no usable default get an example value.
  const example = EXAMPLE_PARAMETERS[r.id] ?? r.defaultParameters;
  out.push('', 'Example instance:', '', '```json', JSON.stringify({ ruleId: r.id, parameters: example }, null, 2), '```', '');
}
out.push(`## Historical filters

An instance of a stateful rule may restrict which past transactions its aggregates count with the
historical filters of \`getRuleFiltersSchema()\` (docs/filters.md):
\`paymentMethodsHistorical\`, \`transactionTypesHistorical\`, \`transactionStatesHistorical\`,
\`transactionCountriesHistorical\`, \`transactionAmountRangeHistorical\`, \`transactionTimeRangeHistorical24hr\`.
The engine keeps a filtered copy of each series the rule reads, filled from the stored history when
the instance is created, so the filters apply to history older than the instance too.

\`\`\`json
{
  "ruleId": "R-30",
  "parameters": { "transactionsLimit": 20, "timeWindow": { "units": 1, "granularity": "day", "rollingBasis": true } },
  "filters": { "transactionTypesHistorical": ["TRANSFER"], "transactionStatesHistorical": ["SUCCESSFUL"] }
}
\`\`\`

## Custom logic and aggregation variables

An instance with \`logic\` (json-logic over \`transaction\`, \`originUser\`, \`destinationUser\` and \`agg\`)
instead of \`ruleId\` (operator allowlist: docs/custom-logic.md). \`logicAggregationVariables\`
declares the windowed aggregates the logic reads as \`agg.<key>\`, computed by the same incremental store:

| field | values |
|---|---|
| \`key\` | \`[A-Za-z_][A-Za-z0-9_]*\`, unique |
| \`aggregationFunc\` | \`COUNT\`, \`SUM\`, \`AVG\`, \`MIN\`, \`MAX\`, \`UNIQUE_COUNT\` |
| \`aggregationFieldKey\` | SUM/AVG/MIN/MAX: \`amount\` (the user's own side), or \`originAmountDetails.transactionAmount\` (SENDING) / \`destinationAmountDetails.transactionAmount\` (RECEIVING). UNIQUE_COUNT: \`type\`, \`transactionState\`; with SENDING or RECEIVING also the counterparty's user id (\`destinationUserId\` when SENDING, \`originUserId\` when RECEIVING), either side's \`…AmountDetails.country\`, the own side's \`…AmountDetails.transactionCurrency\` |
| \`userDirection\` | \`SENDER\`, \`RECEIVER\`, \`SENDER_OR_RECEIVER\` (the logic runs once per side; each true run hits that side) |
| \`transactionDirection\` | \`SENDING\`, \`RECEIVING\`, \`SENDING_RECEIVING\` |
| \`timeWindow\` | \`{ start, end }\`, each \`{ units, granularity (second … fiscal_year, or now), rollingBasis? }\`; start inclusive, end exclusive unless it is the transaction time. A point is rolling by default (\`{ units: 30, granularity: day }\` is exactly 30 × 24 h before the transaction); \`rollingBasis: false\` makes a day-or-longer point calendar-aligned (UTC), as in rule time windows |
| \`filtersLogic\` | optional json-logic over \`transaction\` (a past one): only accepted transactions count |
| \`baseCurrency\` | currency of SUM/AVG/MIN/MAX values (default the engine's) |
| \`includeCurrentEntity\` | default \`true\` |

Values are numbers (\`null\` for AVG/MIN/MAX of nothing). Example — more than 5 card payments in an hour:

\`\`\`json
{
  "logic": { ">": [{ "var": "agg.cardPayments" }, 5] },
  "logicAggregationVariables": [{
    "key": "cardPayments", "aggregationFunc": "COUNT", "userDirection": "SENDER", "transactionDirection": "SENDING",
    "timeWindow": { "start": { "units": 1, "granularity": "hour" }, "end": { "units": 0, "granularity": "now" } },
    "filtersLogic": { "==": [{ "var": "transaction.originPaymentDetails.method" }, "CARD"] }
  }]
}
\`\`\`

## User rules

A rule of type \`USER\` (R-20, R-61; a host declares its own with \`defineUserRule\`) runs, for each
active instance whose user filters pass, on every user creation (\`POST /consumer/users\`,
\`POST /business/users\`, and their batches) and every user event (\`POST /events/consumer/user\`,
\`POST /events/business/user\`, and their batches), against the user after the change and the user
stored before it; never on a transaction, as a transaction rule never runs on a user. The answers'
\`executedRules\` / \`hitRules\` have the transactions' shape (a hit's \`ruleHitMeta.hitDirections\` is
\`["ORIGIN"]\`: the user itself); the stored event keeps them, and \`GET\` of the user answers those of its
latest creation or event. Counters count each run and hit; a live hit of an instance with
\`alertCreationOnHit\` opens (or joins) the open alert of (instance, user), in the user's open case, as a
transaction hit does — an alert with \`entityDetails.type\` \`USER\` and no transaction ids. All of it is
written in one atomic step with the user. The parameters and action are chosen by the user's risk level
(manual \`riskLevel\`, else CRA level, else \`defaultRiskLevel\`). An instance of a user rule takes user
filters only: transaction and historical filters, \`checkDirection\`, and \`triggersOnHit\` that would
change the user are refused (400).

## Not shipped

- **R-113** (user location changed too many times by IP address): needs the city of each past
  transaction's IP, i.e. a geo-IP lookup the host must supply; \`DeviceData\` in the
  [wire format](wire-format.md#transaction) carries \`ipCountry\` but no city, and txmon has no geo-IP
  port yet.

## Lists

R-132 reads lists kept in the list repository (in memory by default; \`repositories.lists\` is a port):
\`engine.putList(listId, { listType: 'BLACKLIST' | 'WHITELIST', subtype, name?, description?, items })\`
creates or replaces one, \`getList\`, \`listLists\`, \`deleteList\` manage them. A list's subtype
(\`USER_ID\`, \`CARD_FINGERPRINT_NUMBER\`, \`IBAN_NUMBER\`, \`BIC\`, \`BANK_ACCOUNT_NUMBER\`,
\`ACH_ACCOUNT_NUMBER\`, \`SWIFT_ACCOUNT_NUMBER\`, \`BANK_SWIFT_CODE\`, \`UPI_IDENTIFYING_NUMBER\`,
\`IP_ADDRESS\`, \`DEVICE_IDENTIFIER\`, \`COUNTRY\`, \`STRING\`, \`CUSTOM\`) decides which transaction value
is looked up; matching is exact. The filter \`whitelistUsers.listIds\` names WHITELISTs of subtype
\`USER_ID\`: their users are skipped by the instance.
- Rules of the [source library](wire-format.md#rule-library) outside the set txmon took on are not
  shipped, nor the user rules R-33 (inactivity, which needs a scheduler) and the screening user rules
  (R-17, R-18, R-19, R-32, R-42, R-43, R-128: they need a sanctions or PEP provider).
`);
writeFileSync(new URL('../docs/rules.md', import.meta.url), out.join('\n'));
console.log(`docs/rules.md: ${rules.length} rules`);
