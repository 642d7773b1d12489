/**
 * Where users live and where money goes: countries, their currencies and conversion factors,
 * the high-risk list, names, banks and account numbers. Plain data and small pure functions; all
 * figures are documented in docs/typologies.md ("Normal behaviour").
 */
import { DEFAULT_USD_RATES } from '../../domain/index.js';
import { createWeightedPicker, type Random } from './random.js';

/** Countries of residence of the customers, with their weights (shares of users, in %). */
export const RESIDENCE_COUNTRIES = ['DE', 'FR', 'ES', 'IT', 'NL', 'GB', 'US', 'PL', 'SE', 'CH'] as const;
/** One of {@link RESIDENCE_COUNTRIES}. */
export type ResidenceCountry = (typeof RESIDENCE_COUNTRIES)[number];
const RESIDENCE_WEIGHTS = [24, 14, 10, 10, 7, 12, 8, 6, 5, 4];

/** Currency of each residence country: the account currency of its customers. */
export const HOME_CURRENCY: Readonly<Record<ResidenceCountry, string>> = Object.freeze({
  DE: 'EUR',
  FR: 'EUR',
  ES: 'EUR',
  IT: 'EUR',
  NL: 'EUR',
  GB: 'GBP',
  US: 'USD',
  PL: 'PLN',
  SE: 'SEK',
  CH: 'CHF',
});

/**
 * FATF "high-risk jurisdictions subject to a call for action" (the black list: Iran, North Korea,
 * Myanmar). The high-risk-corridor typology sends money to or from them; honest remittances of
 * Iranian and Myanmar nationals to their home countries are the look-alikes.
 */
export const HIGH_RISK_COUNTRIES = ['IR', 'KP', 'MM'] as const;

/**
 * Nationalities of the customers who live outside their country of nationality (migrants), with
 * weights. Migrants send remittances home, which makes the cross-border flows of a normal population.
 */
const MIGRANT_NATIONALITIES = ['TR', 'RO', 'IN', 'UA', 'PL', 'MA', 'NG', 'PH', 'CN', 'BR', 'VN', 'PK', 'EG', 'IT', 'ES', 'FR', 'PT', 'IR', 'MM'] as const;
const MIGRANT_WEIGHTS = [13, 10, 10, 8, 7, 6, 6, 6, 5, 5, 4, 4, 3, 3, 3, 2, 3, 3, 1];

/** Countries customers travel to (card spend abroad), with weights. */
const TRAVEL_COUNTRIES = ['ES', 'IT', 'FR', 'PT', 'GR', 'HR', 'AT', 'NL', 'DE', 'GB', 'US', 'TR', 'TH', 'AE'] as const;
const TRAVEL_WEIGHTS = [16, 14, 12, 8, 8, 5, 6, 5, 6, 7, 5, 5, 2, 2];

/** Currency of the countries money is sent to or spent in (when it is not in the rate table, USD is used). */
const COUNTRY_CURRENCY: Readonly<Record<string, string>> = Object.freeze({
  DE: 'EUR',
  FR: 'EUR',
  ES: 'EUR',
  IT: 'EUR',
  NL: 'EUR',
  PT: 'EUR',
  GR: 'EUR',
  HR: 'EUR',
  AT: 'EUR',
  GB: 'GBP',
  US: 'USD',
  PL: 'PLN',
  SE: 'SEK',
  CH: 'CHF',
  TR: 'TRY',
  RO: 'RON',
  IN: 'INR',
  UA: 'UAH',
  NG: 'NGN',
  PH: 'PHP',
  CN: 'CNY',
  BR: 'BRL',
  TH: 'THB',
  AE: 'AED',
});

/** Countries whose accounts are IBANs (the others are reached by SWIFT with an account number). */
const IBAN_LENGTHS: Readonly<Record<string, number>> = Object.freeze({
  DE: 22,
  FR: 27,
  ES: 24,
  IT: 27,
  NL: 18,
  GB: 22,
  PL: 28,
  SE: 24,
  CH: 21,
  PT: 25,
  GR: 27,
  HR: 21,
  AT: 20,
  RO: 24,
  TR: 26,
  UA: 29,
  AE: 23,
  EG: 29,
  PK: 24,
  IR: 26,
});

/** Units of each rate-table currency per 1 EUR, from txmon's default rate table. */
const UNITS_PER_EUR: ReadonlyMap<string, number> = (() => {
  const eurPerUsd = Number(DEFAULT_USD_RATES.EUR);
  return new Map(Object.entries(DEFAULT_USD_RATES).map(([code, perUsd]) => [code, Number(perUsd) / eurPerUsd]));
})();

/** How many units of `currency` one EUR buys (txmon's default rates); 1 for a currency not in the table. */
export function unitsPerEur(currency: string): number {
  return UNITS_PER_EUR.get(currency) ?? 1;
}

/** The currency money sent to `country` arrives in: its own when txmon's rate table has it, else USD. */
export function currencyOfCountry(country: string): string {
  return COUNTRY_CURRENCY[country] ?? 'USD';
}

/**
 * The reporting threshold the structuring typology stays just below, per account currency: 10,000
 * in EUR, USD, GBP and CHF (the EU cash-declaration and US currency-transaction-report figure),
 * and round local figures of about the same value in PLN and SEK.
 */
export const REPORTING_THRESHOLD: Readonly<Record<string, number>> = Object.freeze({ EUR: 10000, USD: 10000, GBP: 10000, CHF: 10000, PLN: 40000, SEK: 100000 });

/**
 * The unit people count round amounts in, per currency: 1 where a unit is worth about a euro,
 * 5 in PLN and 10 in SEK (so 50 EUR ~ 250 PLN ~ 500 SEK are all "round").
 */
export function roundUnit(currency: string): number {
  return ROUND_UNITS[currency] ?? 1;
}

const ROUND_UNITS: Readonly<Record<string, number>> = Object.freeze({ PLN: 5, SEK: 10 });

/** Rounds an amount to its currency's cents (all currencies used here have 2 decimals). */
export function roundAmount(amount: number): number {
  return Math.round(amount * 100) / 100;
}

/** `amount` of `from` in `to`, at txmon's default rates, rounded to cents. */
export function convertAmount(amount: number, from: string, to: string): number {
  return from === to ? amount : roundAmount((amount / unitsPerEur(from)) * unitsPerEur(to));
}

/** Draws a country of residence. */
export const pickResidence: (random: Random) => ResidenceCountry = createWeightedPicker(RESIDENCE_COUNTRIES, RESIDENCE_WEIGHTS);
/** Draws the nationality of a migrant (may equal the residence; the caller redraws). */
export const pickMigrantNationality: (random: Random) => string = createWeightedPicker(MIGRANT_NATIONALITIES, MIGRANT_WEIGHTS);
/** Draws a travel destination. */
export const pickTravelCountry: (random: Random) => string = createWeightedPicker(TRAVEL_COUNTRIES, TRAVEL_WEIGHTS);

/** Countries a laundering scheme sends money out to (not high-risk: the corridor typology has those). */
export const OFFSHORE_COUNTRIES = ['AE', 'TR', 'HK', 'CY', 'LT', 'GB', 'RO', 'UA', 'CN'] as const;

type NameGroup = 'germanic' | 'romance' | 'anglo' | 'slavic' | 'mena' | 'southAsia' | 'eastAsia' | 'africa';

const NAME_GROUP_OF: Readonly<Record<string, NameGroup>> = Object.freeze({
  DE: 'germanic',
  NL: 'germanic',
  CH: 'germanic',
  SE: 'germanic',
  AT: 'germanic',
  FR: 'romance',
  ES: 'romance',
  IT: 'romance',
  PT: 'romance',
  BR: 'romance',
  RO: 'romance',
  GB: 'anglo',
  US: 'anglo',
  PL: 'slavic',
  UA: 'slavic',
  HR: 'slavic',
  TR: 'mena',
  IR: 'mena',
  MA: 'mena',
  EG: 'mena',
  AE: 'mena',
  PK: 'southAsia',
  IN: 'southAsia',
  CN: 'eastAsia',
  VN: 'eastAsia',
  PH: 'eastAsia',
  MM: 'eastAsia',
  KP: 'eastAsia',
  TH: 'eastAsia',
  HK: 'eastAsia',
  NG: 'africa',
});

const FIRST_NAMES: Readonly<Record<NameGroup, readonly string[]>> = Object.freeze({
  germanic: ['Anna', 'Lukas', 'Sophie', 'Jonas', 'Lena', 'Felix', 'Marie', 'Paul', 'Emma', 'Finn', 'Hanna', 'Erik', 'Sanne', 'Lars', 'Greta', 'Tobias'],
  romance: ['Lucas', 'Chloé', 'Mateo', 'Lucía', 'Giulia', 'Marco', 'Inès', 'Hugo', 'Sofia', 'Pablo', 'Chiara', 'Tomás', 'Ana', 'Luca', 'Elena', 'Andrei'],
  anglo: ['Oliver', 'Amelia', 'Jack', 'Olivia', 'Harry', 'Isla', 'James', 'Emily', 'Noah', 'Ava', 'Liam', 'Grace', 'Ethan', 'Chloe', 'Mason', 'Ruby'],
  slavic: ['Jakub', 'Zuzanna', 'Piotr', 'Olena', 'Kacper', 'Maja', 'Andriy', 'Natalia', 'Tomasz', 'Iryna', 'Marek', 'Ewa', 'Dmytro', 'Alicja', 'Ivan', 'Kasia'],
  mena: ['Mehmet', 'Elif', 'Ali', 'Zeynep', 'Reza', 'Maryam', 'Youssef', 'Fatima', 'Omar', 'Leila', 'Hassan', 'Sara', 'Amir', 'Nour', 'Emre', 'Yasmin'],
  southAsia: ['Aarav', 'Priya', 'Rahul', 'Ananya', 'Imran', 'Ayesha', 'Vikram', 'Neha', 'Arjun', 'Sana', 'Rohan', 'Divya', 'Bilal', 'Kavya', 'Sahil', 'Meera'],
  eastAsia: ['Wei', 'Mei', 'Minh', 'Linh', 'Jose', 'Maria', 'Aung', 'Thida', 'Jun', 'Hua', 'Tuan', 'Mai', 'Kyaw', 'Nanda', 'Chen', 'Somchai'],
  africa: [
    'Chinedu',
    'Ngozi',
    'Emeka',
    'Amaka',
    'Tunde',
    'Folake',
    'Ifeanyi',
    'Chioma',
    'Segun',
    'Bisi',
    'Kelechi',
    'Adaeze',
    'Femi',
    'Zainab',
    'Obinna',
    'Ada',
  ],
});

const LAST_NAMES: Readonly<Record<NameGroup, readonly string[]>> = Object.freeze({
  germanic: [
    'Müller',
    'Schmidt',
    'Schneider',
    'Fischer',
    'Weber',
    'de Vries',
    'Jansen',
    'Bakker',
    'Meier',
    'Keller',
    'Andersson',
    'Johansson',
    'Wagner',
    'Becker',
    'Huber',
    'Visser',
  ],
  romance: [
    'Martin',
    'Bernard',
    'García',
    'Fernández',
    'Rossi',
    'Russo',
    'Dubois',
    'López',
    'Bianchi',
    'Silva',
    'Santos',
    'Moreau',
    'Romano',
    'Popescu',
    'Costa',
    'Ferreira',
  ],
  anglo: [
    'Smith',
    'Jones',
    'Taylor',
    'Brown',
    'Williams',
    'Wilson',
    'Johnson',
    'Davies',
    'Miller',
    'Evans',
    'Thomas',
    'Clarke',
    'Walker',
    'Wright',
    'Hughes',
    'Green',
  ],
  slavic: [
    'Nowak',
    'Kowalski',
    'Wiśniewski',
    'Shevchenko',
    'Kovalenko',
    'Wójcik',
    'Bondarenko',
    'Kamiński',
    'Lewandowski',
    'Tkachenko',
    'Zieliński',
    'Horvat',
    'Melnyk',
    'Kozak',
    'Szymański',
    'Kravets',
  ],
  mena: [
    'Yılmaz',
    'Kaya',
    'Demir',
    'Hosseini',
    'Ahmadi',
    'Rezaei',
    'El Amrani',
    'Benali',
    'Hassan',
    'Mansour',
    'Çelik',
    'Karimi',
    'Haddad',
    'Mohammadi',
    'Aydın',
    'Saleh',
  ],
  southAsia: ['Sharma', 'Patel', 'Singh', 'Kumar', 'Khan', 'Gupta', 'Reddy', 'Iyer', 'Malik', 'Das', 'Chaudhry', 'Nair', 'Mehta', 'Qureshi', 'Rao', 'Joshi'],
  eastAsia: ['Wang', 'Li', 'Zhang', 'Nguyen', 'Tran', 'Santos', 'Reyes', 'Htun', 'Win', 'Liu', 'Pham', 'Cruz', 'Maung', 'Chen', 'Le', 'Bautista'],
  africa: [
    'Okafor',
    'Adeyemi',
    'Okonkwo',
    'Balogun',
    'Eze',
    'Ogunleye',
    'Nwosu',
    'Bello',
    'Adebayo',
    'Obi',
    'Ibrahim',
    'Chukwu',
    'Afolabi',
    'Uche',
    'Oyelaran',
    'Nnamdi',
  ],
});

/** A person's name typical of `country`. */
export function drawPersonName(random: Random, country: string): { firstName: string; lastName: string } {
  const group = NAME_GROUP_OF[country] ?? 'anglo';
  return { firstName: random.pick(FIRST_NAMES[group]), lastName: random.pick(LAST_NAMES[group]) };
}

const COMPANY_STEMS = [
  'Nord',
  'Alpen',
  'Blue',
  'Oak',
  'Sun',
  'River',
  'Stone',
  'Green',
  'Atlas',
  'Kestrel',
  'Linden',
  'Harbor',
  'Vega',
  'Cedar',
  'Maple',
  'Orion',
];
const COMPANY_KINDS = ['Logistics', 'Foods', 'Systems', 'Consulting', 'Retail', 'Health', 'Energy', 'Media', 'Works', 'Studio', 'Trading', 'Services'];
const COMPANY_FORMS: Readonly<Record<string, string>> = Object.freeze({
  DE: 'GmbH',
  CH: 'AG',
  AT: 'GmbH',
  FR: 'SAS',
  ES: 'S.L.',
  IT: 'S.r.l.',
  NL: 'B.V.',
  GB: 'Ltd',
  US: 'Inc.',
  PL: 'sp. z o.o.',
  SE: 'AB',
});

/** A company name in the style of `country`. */
export function drawCompanyName(random: Random, country: string): string {
  return `${random.pick(COMPANY_STEMS)} ${random.pick(COMPANY_KINDS)} ${COMPANY_FORMS[country] ?? 'Ltd'}`;
}

const BANK_STEMS = ['Civic', 'Union', 'Metro', 'Harbour', 'Crown', 'Summit', 'Pioneer', 'Meridian', 'Coastal', 'Federal'];

/** A bank: display name and an 8-character BIC of `country`. */
export interface Bank {
  readonly name: string;
  readonly bic: string;
}

/** Bank number `index` (0–9) of `country`: a stable name and BIC. */
export function bankOf(country: string, index: number): Bank {
  const stem = BANK_STEMS[index % BANK_STEMS.length] as string;
  return { name: `${stem} Bank ${country}`, bic: `${stem.slice(0, 3).toUpperCase()}B${country}${String.fromCharCode(65 + (index % 26))}X` };
}

/** The bank that holds the customers' own accounts (one per residence country). */
export function homeBankOf(country: string): Bank {
  return { name: `Lumen Bank ${country}`, bic: `LUMN${country}22` };
}

/** Whether accounts in `country` are IBANs. */
export function hasIban(country: string): boolean {
  return Object.hasOwn(IBAN_LENGTHS, country);
}

/** Digits of `random`, `length` of them. */
export function drawDigits(random: Random, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += String(random.int(0, 9));
  return out;
}

/**
 * An IBAN of `country` with valid ISO 13616 check digits (mod 97) and a random numeric BBAN, so
 * that a host validating IBANs accepts it.
 */
export function drawIban(random: Random, country: string): string {
  const length = IBAN_LENGTHS[country] ?? 22;
  const bban = drawDigits(random, length - 4);
  return `${country}${ibanCheckDigits(country, bban)}${bban}`;
}

function ibanCheckDigits(country: string, bban: string): string {
  // The BBAN, the country's letters as numbers (A = 10 … Z = 35) and "00", taken modulo 97 in
  // chunks small enough for exact float arithmetic.
  const letters = [...country].map((c) => String(c.charCodeAt(0) - 55)).join('');
  const digits = `${bban}${letters}00`;
  let remainder = 0;
  for (let i = 0; i < digits.length; i += 7) remainder = Number(`${remainder}${digits.slice(i, i + 7)}`) % 97;
  return String(98 - remainder).padStart(2, '0');
}
