/**
 * Country and currency code tables.
 *
 * The schemas check these codes with Set-backed ajv formats (`country-code`, `currency-code`)
 * instead of 250- and 500-value `enum`s: a `Set#has` is several times faster than ajv's linear
 * enum scan and gives one short error instead of a huge allowed-values list.
 *
 * Which codes are accepted, and why:
 * - Countries: the 249 assigned ISO 3166-1 alpha-2 codes, plus the user-assigned codes `XA`–`XZ`
 *   except `XX` (`XK` is the de-facto code for Kosovo; the others are used by card schemes and
 *   payment providers for "unknown" or supranational areas) and `N/A` ("not applicable"), because
 *   clients written for the Flagright API may send them. `EU` (exceptionally reserved) is NOT
 *   accepted: a transaction country must be a country.
 * - Currencies: every active ISO 4217 code (including the fund and precious-metal codes), withdrawn
 *   codes that legacy systems still emit (e.g. `HRK`, `VEF`, `ZWL`), common market codes that are
 *   not ISO (`CNH`, `GGP`, `IMP`, `JEP`) and widely traded crypto-asset tickers (BTC, ETH, USDT,
 *   USDC, …). `XTS` (testing) and `XXX` (no currency) are rejected.
 */

function toSet(text: string): ReadonlySet<string> {
  return new Set(text.split(/\s+/).filter((code) => code !== ''));
}

/** The 249 officially assigned ISO 3166-1 alpha-2 codes. */
const ISO_3166_ALPHA2 = `
AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ
BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ
CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ
DE DJ DK DM DO DZ
EC EE EG EH ER ES ET
FI FJ FK FM FO FR
GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY
HK HM HN HR HT HU
ID IE IL IM IN IO IQ IR IS IT
JE JM JO JP
KE KG KH KI KM KN KP KR KW KY KZ
LA LB LC LI LK LR LS LT LU LV LY
MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ
NA NC NE NF NG NI NL NO NP NR NU NZ
OM
PA PE PF PG PH PK PL PM PN PR PS PT PW PY
QA
RE RO RS RU RW
SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ
TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ
UA UG UM US UY UZ
VA VC VE VG VI VN VU
WF WS
YE YT
ZA ZM ZW
`;

/** User-assigned codes accepted for compatibility (XK = Kosovo), and "not applicable". */
const EXTRA_COUNTRY_CODES = `
XA XB XC XD XE XF XG XH XI XJ XK XL XM XN XO XP XQ XR XS XT XU XV XW XY XZ
N/A
`;

/** Active ISO 4217 codes (fiat, funds, precious metals, SDR and bond-market units). */
const ISO_4217_ACTIVE = `
AED AFN ALL AMD ANG AOA ARS AUD AWG AZN
BAM BBD BDT BGN BHD BIF BMD BND BOB BOV BRL BSD BTN BWP BYN BZD
CAD CDF CHE CHF CHW CLF CLP CNY COP COU CRC CUP CVE CZK
DJF DKK DOP DZD
EGP ERN ETB EUR
FJD FKP
GBP GEL GHS GIP GMD GNF GTQ GYD
HKD HNL HTG HUF
IDR ILS INR IQD IRR ISK
JMD JOD JPY
KES KGS KHR KMF KPW KRW KWD KYD KZT
LAK LBP LKR LRD LSL LYD
MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MXV MYR MZN
NAD NGN NIO NOK NPR NZD
OMR
PAB PEN PGK PHP PKR PLN PYG
QAR
RON RSD RUB RWF
SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SVC SYP SZL
THB TJS TMT TND TOP TRY TTD TWD TZS
UAH UGX USD USN UYI UYU UYW UZS
VED VES VND VUV
WST
XAF XAG XAU XBA XBB XBC XBD XCD XCG XDR XOF XPD XPF XPT XSU XUA
YER
ZAR ZMW ZWG ZWL
`;

/** Withdrawn ISO 4217 codes still seen in legacy data, and common non-ISO market codes. */
const LEGACY_AND_MARKET_CURRENCY_CODES = `
BYR CUC EEK HRK LTL LVL MRO SKK SLL STD TMM VEF ZMK ZWD
CNH GGP IMP JEP
`;

/** Crypto-asset tickers accepted as currencies (the set Flagright clients send, plus a few majors). */
const CRYPTO_CURRENCY_CODES = `
1INCH AAVE ABT ACH ACS ADA AERGO AERO AGLD AIOZ ALCX ALEPH ALGO ALICE AMP ANKR ANT APE API3 APT
ARB ARPA ASM AST ATA ATOM AUCTION AUDIO AURORA AVAX AVT AXL AXS
BADGER BAL BAND BAT BCH BICO BIGTIME BIT BLUR BLZ BNB BNT BOBA BOND BONK BSV BTC BTRST BUSD
C98 CBETH CELR CGLD CHZ CLV COMP COTI COVAL CRO CRPT CRV CTSI CTX CVC CVX
DAI DAR DASH DDX DESO DEXT DIA DIMO DNT DOGE DOT DREP DYP
EGLD ELA ENJ ENS EOS ETC ETH ETH2 EUROC
FARM FDUSD FET FIDA FIL FIS FLOW FLR FORT FORTH FOX FTM FX
GAL GALA GFI GHST GLM GMT GNO GNT GODS GRT GST GTC GUSD GYEN
HBAR HFT HIGH HNT HONEY HOPR
ICP IDEX ILV IMX INDEX INJ INV IOTX
JASMY JTO JUP
KAVA KEEP KNC KRL KSM
LCX LDO LINK LIT LOKA LOOM LPT LQTY LRC LSETH LTC
MAGIC MANA MASK MATH MATIC MCO2 MDT MEDIA METIS MINA MIR MKR MLN MNDE MOBILE MONA MPL MSOL MTL MULTI MUSE MXC
NCT NEAR NEST NKN NMR NU
OCEAN OGN OMG ONDO OOKI OP ORCA ORN OSMO OXT
PAX PEPE PERP PLA PLU PNG POLS POLY POND POWR PRIME PRO PRQ PUNDIX PYR PYUSD
QI QNT QSP QUICK
RAD RAI RARE RARI RBN REN RENDER REP REPV2 REQ RGT RLC RLY RNDR ROSE RPL
SAND SEAM SEI SHIB SHPING SKL SNT SNX SOL SPA SPELL STETH STG STORJ STRK STX SUI SUKU SUPER SUSHI SWFTC SYLO SYN
T TIA TIME TON TONE TRAC TRB TRIBE TRU TRX TUSD TVK
UMA UNFI UNI UPI USDC USDP USDT UST
VARA VELO VET VGX VOXEL VTHO
WAMPL WAXL WBTC WCFG WETH WLUNA
XCN XLM XMON XMR XRP XTZ XYO
YFI YFII
ZEC ZEN ZETA ZRX
`;

/** Every country code txmon accepts (ISO 3166-1 alpha-2 plus the documented extras). */
export const COUNTRY_CODES: ReadonlySet<string> = toSet(ISO_3166_ALPHA2 + EXTRA_COUNTRY_CODES);

/** Every currency code txmon accepts (ISO 4217, legacy/market codes and crypto tickers). */
export const CURRENCY_CODES: ReadonlySet<string> = toSet(ISO_4217_ACTIVE + LEGACY_AND_MARKET_CURRENCY_CODES + CRYPTO_CURRENCY_CODES);

/** Currency codes that are crypto-asset tickers (a subset of {@link CURRENCY_CODES}). */
export const CRYPTO_CODES: ReadonlySet<string> = toSet(CRYPTO_CURRENCY_CODES);

/** True when `value` is an accepted country code (case-sensitive: `gb` is not accepted). */
export function isCountryCode(value: unknown): value is string {
  return typeof value === 'string' && COUNTRY_CODES.has(value);
}

/** True when `value` is an accepted currency code (case-sensitive: `usd` is not accepted). */
export function isCurrencyCode(value: unknown): value is string {
  return typeof value === 'string' && CURRENCY_CODES.has(value);
}

/**
 * Minor-unit digits of the currencies whose exponent is not 2 (ISO 4217 "minor unit" column).
 * Every other accepted code uses 2, including the codes ISO lists as "N.A." (precious metals, SDR).
 * Crypto assets use 8, txmon's money precision (`MONEY_SCALE_DIGITS`), not the token's on-chain
 * decimals (ETH has 18): amounts are never kept finer than 10^-8.
 */
export const CURRENCY_EXPONENTS: Readonly<Record<string, number>> = Object.freeze({
  // 0 digits
  BIF: 0,
  BYR: 0,
  CLP: 0,
  DJF: 0,
  GNF: 0,
  ISK: 0,
  JPY: 0,
  KMF: 0,
  KRW: 0,
  PYG: 0,
  RWF: 0,
  UGX: 0,
  UYI: 0,
  VND: 0,
  VUV: 0,
  XAF: 0,
  XOF: 0,
  XPF: 0,
  // 3 digits
  BHD: 3,
  IQD: 3,
  JOD: 3,
  KWD: 3,
  LYD: 3,
  OMR: 3,
  TND: 3,
  // 4 digits
  CLF: 4,
  UYW: 4,
  ...Object.fromEntries([...CRYPTO_CODES].map((code) => [code, 8])),
});

/**
 * Minor-unit digits of a currency: {@link CURRENCY_EXPONENTS}, else 2 (also for unknown codes).
 * @example currencyExponent('JPY') === 0; currencyExponent('KWD') === 3; currencyExponent('EUR') === 2
 */
export function currencyExponent(code: string): number {
  return Object.hasOwn(CURRENCY_EXPONENTS, code) ? (CURRENCY_EXPONENTS[code] ?? 2) : 2;
}
