/** The typology modules, by typology. */
import type { Typology } from '../types.js';
import { cycle } from './cycle.js';
import { dormancyBurst } from './dormancy-burst.js';
import { fanIn } from './fan-in.js';
import { fanOut } from './fan-out.js';
import { highRiskCorridor } from './high-risk-corridor.js';
import { passThrough } from './pass-through.js';
import { roundAmounts } from './round-amounts.js';
import type { TypologyModule } from './shared.js';
import { structuring } from './structuring.js';

/** Each typology's module. */
export const TYPOLOGY_MODULES: Readonly<Record<Typology, TypologyModule>> = Object.freeze({
  structuring,
  fan_in: fanIn,
  fan_out: fanOut,
  pass_through: passThrough,
  dormancy_burst: dormancyBurst,
  round_amounts: roundAmounts,
  high_risk_corridor: highRiskCorridor,
  cycle,
});
