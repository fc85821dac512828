import { describe, expect, it } from 'vitest';
import {
  gs1CheckDigit,
  problemsOf,
  validateItem,
  withCheckDigit,
} from '../../packages/simulator/src/datamodel.ts';

const VALID = {
  primaryKey__: withCheckDigit('061414112345'),
  name: 'Water',
  category: 'BEVERAGE',
  netContent: 500,
  netContentUnit: 'MLT',
  simple_date: '2026-03-02',
};

describe('gs1CheckDigit', () => {
  it('computes the GS1 mod-10 check digit of GTINs and GLNs', () => {
    expect(gs1CheckDigit('061414112345')).toBe(2);
    expect(withCheckDigit('061414100000')).toBe('0614141000005');
    expect(withCheckDigit('0061414112346')).toBe('00614141123469');
  });
});

describe('validateItem', () => {
  it('returns no validations for a clean item', () => {
    const response = validateItem({ newItem: VALID });

    expect(response.validations).toEqual({});
    expect(problemsOf(VALID)).toEqual([]);
  });

  it('reproduces the documented Friday warning on simple_date exactly', () => {
    const response = validateItem({ newItem: { ...VALID, simple_date: '2013-07-26' } });

    expect(response.validations).toEqual({
      simple_date: [
        {
          name: 'simple_validation',
          level: 'Warning',
          path: ['simple_date'],
          message: "'Simple Date' should not be a Friday",
          params: { msg_id: 'friday', err_val: '2013-07-26', err_val_msg: "'2013-07-26' " },
        },
      ],
    });
  });

  it('puts the actual Friday into the warning params', () => {
    const response = validateItem({ newItem: { ...VALID, simple_date: '2026-11-20' } });

    expect(response.validations.simple_date?.[0]?.params).toEqual({
      msg_id: 'friday',
      err_val: '2026-11-20',
      err_val_msg: "'2026-11-20' ",
    });
  });

  it('reports missing required attributes, bad enum values, types and dates as errors', () => {
    // Prepare
    const item = {
      primaryKey__: withCheckDigit('061414112345'),
      category: 'TOYS',
      netContent: '5 l',
      netContentUnit: 'GALLON',
      simple_date: '2026-02-30',
    };

    // Act
    const { validations } = validateItem({ newItem: item });

    // Assess
    expect(Object.keys(validations)).toEqual([
      'name',
      'category',
      'netContent',
      'netContentUnit',
      'simple_date',
    ]);
    expect(validations.name?.[0]).toMatchObject({
      name: 'required_validation',
      level: 'Error',
      path: ['name'],
    });
    expect(validations.category?.[0]).toMatchObject({
      name: 'enum_validation',
      message: "'Category' must be one of FOOD, BEVERAGE, NON_FOOD",
      params: { err_val: 'TOYS' },
    });
    expect(validations.netContent?.[0]).toMatchObject({
      name: 'type_validation',
      params: { err_val: '5 l' },
    });
    expect(validations.netContentUnit?.[0]?.name).toBe('enum_validation');
    expect(validations.simple_date?.[0]).toMatchObject({ name: 'date_validation', level: 'Error' });
  });

  it('checks the GTIN check digit of numeric keys only', () => {
    const wrongDigit = validateItem({ newItem: { ...VALID, primaryKey__: '0614141123453' } });
    const textKey = validateItem({ newItem: { ...VALID, primaryKey__: 'SKU/42 ünï' } });

    expect(wrongDigit.validations.primaryKey__?.[0]).toMatchObject({
      name: 'gtin_validation',
      message: "'Primary Key' is not a valid GTIN: its check digit should be 2",
    });
    expect(textKey.validations).toEqual({});
  });

  it('validates only the attributes named in attributeNames', () => {
    const item = { primaryKey__: VALID.primaryKey__, category: 'TOYS', simple_date: '2013-07-26' };

    const response = validateItem({ newItem: item, attributeNames: ['simple_date'] });

    expect(Object.keys(response.validations)).toEqual(['simple_date']);
    expect(Object.keys(response.attributeStates)).toEqual(['simple_date']);
  });

  it('describes attribute states against oldItem and refuses a changed key', () => {
    // Prepare
    const oldItem = { ...VALID, category: 'FOOD', netContentUnit: 'MLT' };
    const { netContentUnit: _removed, ...rest } = VALID;
    const newItem = { ...rest, primaryKey__: withCheckDigit('061414112346'), extra: 'x' };

    // Act
    const response = validateItem({ newItem, oldItem });

    // Assess
    expect(response.attributeStates).toMatchObject({
      name: 'UNCHANGED',
      category: 'CHANGED',
      netContentUnit: 'REMOVED',
      extra: 'NEW',
    });
    expect(response.validations.primaryKey__?.[0]?.name).toBe('key_validation');
  });

  it('marks every attribute NEW without oldItem and computes gtin14 for numeric keys', () => {
    const response = validateItem({ newItem: VALID });

    expect(Object.values(response.attributeStates).every((state) => state === 'NEW')).toBe(true);
    expect(response.calculations).toEqual({ gtin14: `0${VALID.primaryKey__}` });
    expect(validateItem({ newItem: { primaryKey__: 'abc', name: 'x' } }).calculations).toEqual({});
  });
});
