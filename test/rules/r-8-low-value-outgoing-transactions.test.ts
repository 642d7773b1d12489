import { describeLowValueRule } from './kits/low-value-suite.js';

describeLowValueRule('R-8');
