/**
 * Parties of a payment and their payment details: the customers' own accounts and cards, and the
 * external parties (employers, billers, merchants, suppliers, beneficiaries abroad) that are not
 * customers. External parties have no user id: they appear only as payment details and a country
 * on their side of a transaction (docs/typologies.md "Who is a user").
 */
import type { PaymentDetails } from '../../domain/index.js';
import { bankOf, currencyOfCountry, drawCompanyName, drawDigits, drawIban, drawPersonName, hasIban, homeBankOf } from './geography.js';
import { STREAMS, createRandom, deriveSeed, type Random } from './random.js';
import type { Side } from './types.js';

/** An account at the customers' own bank: IBAN, or ACH for United States residents. */
export function drawOwnAccount(random: Random, country: string, holder: string): PaymentDetails {
  if (country === 'US') return { method: 'ACH', routingNumber: '021000089', accountNumber: drawDigits(random, 10), bankName: 'Lumen Bank US', name: holder };
  const bank = homeBankOf(country);
  return { method: 'IBAN', IBAN: drawIban(random, country), BIC: bank.bic, bankName: bank.name, name: holder };
}

/** An account at another bank of `country` (IBAN where the country has them, else SWIFT with an account number). */
export function drawForeignAccount(random: Random, country: string, holder: string, legalEntity: boolean): PaymentDetails {
  const bank = bankOf(country, random.int(0, 9));
  const counterpartyType = legalEntity ? 'LEGAL_ENTITY' : 'INDIVIDUAL';
  if (country === 'US')
    return { method: 'ACH', counterpartyType, routingNumber: drawDigits(random, 9), accountNumber: drawDigits(random, 10), bankName: bank.name, name: holder };
  if (hasIban(country)) return { method: 'IBAN', counterpartyType, IBAN: drawIban(random, country), BIC: bank.bic, bankName: bank.name, name: holder };
  return { method: 'SWIFT', counterpartyType, swiftCode: bank.bic, accountNumber: drawDigits(random, 12), bankName: bank.name, name: holder };
}

/** An external person's account in `country`, as a side of a transaction. */
export function drawExternalPerson(random: Random, country: string): Side {
  const name = drawPersonName(random, country);
  return { country, currency: currencyOfCountry(country), payment: drawForeignAccount(random, country, `${name.firstName} ${name.lastName}`, false) };
}

/** An external company's account in `country`, as a side of a transaction. */
export function drawExternalCompany(random: Random, country: string, name = drawCompanyName(random, country)): Side {
  return { country, currency: currencyOfCountry(country), payment: drawForeignAccount(random, country, name, true) };
}

/** Cash at a branch or ATM of the customers' bank. */
export function cashPayment(country: string, terminal: number): PaymentDetails {
  return { method: 'CASH', identifier: `atm-${country.toLowerCase()}-${String(terminal).padStart(4, '0')}` };
}

/** A card merchant: name, category code and country. */
export interface Merchant {
  readonly id: string;
  readonly category: string;
  readonly mcc: string;
  readonly country: string;
}

/** Card merchant categories with their ISO 18245 codes, median ticket (EUR) and weight among purchases. */
export const MERCHANT_CATEGORIES = [
  { category: 'GROCERY', mcc: '5411', median: 28, sigma: 0.8, weight: 34 },
  { category: 'RESTAURANT', mcc: '5812', median: 24, sigma: 0.7, weight: 16 },
  { category: 'FAST_FOOD', mcc: '5814', median: 11, sigma: 0.6, weight: 10 },
  { category: 'TRANSPORT', mcc: '4111', median: 9, sigma: 0.8, weight: 8 },
  { category: 'FUEL', mcc: '5541', median: 55, sigma: 0.4, weight: 6 },
  { category: 'ONLINE_RETAIL', mcc: '5999', median: 38, sigma: 1.0, weight: 12 },
  { category: 'CLOTHING', mcc: '5651', median: 45, sigma: 0.8, weight: 5 },
  { category: 'PHARMACY', mcc: '5912', median: 16, sigma: 0.7, weight: 4 },
  { category: 'ENTERTAINMENT', mcc: '7832', median: 22, sigma: 0.7, weight: 3 },
  { category: 'ELECTRONICS', mcc: '5732', median: 120, sigma: 1.1, weight: 1 },
  { category: 'HOTEL', mcc: '7011', median: 140, sigma: 0.7, weight: 1 },
] as const;

/**
 * External parties that are the same every time they are met (the same employer pays every month,
 * the same biller collects every bill): each is drawn once from its own stream and kept.
 */
export interface Externals {
  /** Employer number `index` of `country`. */
  employer(country: string, index: number): Side;
  /** Biller (utility, telecom, insurer) number `index` of `country`. */
  biller(country: string, index: number): Side;
  /** Supplier number `index` of `country` (businesses pay them). */
  supplier(country: string, index: number): Side;
  /** Card merchant number `index` of category `category` in `country`. */
  merchant(country: string, category: number, index: number): Merchant;
  /** The card acquirer that settles card takings to businesses of `country`. */
  acquirer(country: string): Side;
}

const KIND = { employer: 1, biller: 2, supplier: 3, merchant: 4, acquirer: 5 } as const;

/** Creates the registry of external parties of a run with seed `seed`. */
export function createExternals(seed: number): Externals {
  const cache = new Map<string, Side | Merchant>();
  const streamOf = (kind: number, country: string, a: number, b = 0) =>
    createRandom(deriveSeed(seed, STREAMS.identifiers, kind, country.charCodeAt(0) * 256 + country.charCodeAt(1), a, b));
  function cached<T extends Side | Merchant>(key: string, make: () => T): T {
    let found = cache.get(key) as T | undefined;
    if (found === undefined) {
      found = make();
      cache.set(key, found);
    }
    return found;
  }
  return {
    employer: (country, index) => cached(`e:${country}:${index}`, () => drawExternalCompany(streamOf(KIND.employer, country, index), country)),
    biller: (country, index) => cached(`b:${country}:${index}`, () => drawExternalCompany(streamOf(KIND.biller, country, index), country)),
    supplier: (country, index) => cached(`s:${country}:${index}`, () => drawExternalCompany(streamOf(KIND.supplier, country, index), country)),
    merchant: (country, category, index) =>
      cached(`m:${country}:${category}:${index}`, () => {
        const random = streamOf(KIND.merchant, country, category, index);
        const kind = MERCHANT_CATEGORIES[category] ?? MERCHANT_CATEGORIES[0];
        return { id: `m-${drawDigits(random, 8)}`, category: kind.category, mcc: kind.mcc, country };
      }),
    acquirer: (country) => cached(`a:${country}`, () => drawExternalCompany(streamOf(KIND.acquirer, country, 0), country, `Lumen Acquiring ${country}`)),
  };
}

/** A customer's card as used at `merchant`: the card's details plus the merchant's. */
export function cardAtMerchant(card: PaymentDetails, merchant: Merchant, present: boolean): PaymentDetails {
  return {
    ...card,
    cardPresent: present,
    merchantDetails: { id: merchant.id, category: merchant.category, MCC: merchant.mcc, country: merchant.country },
  } as PaymentDetails;
}
