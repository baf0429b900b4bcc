import { describe, expect, it } from 'vitest';
import { budgetLine, renderBudgetChart, type CallerSeries } from '../../examples/bookstore/chart.js';
import { allElements, parseXml } from './xml.js';

const caller = (name: string, samples: CallerSeries['samples']): CallerSeries => ({
  name,
  tier: 'free',
  capacity: 100,
  refillPerSecond: 10,
  samples,
});

describe('the demo chart', () => {
  it('draws refill between responses, flat once the bucket is full, and the measured value at each response', () => {
    const line = budgetLine(
      caller('a', [
        { t: 0, status: 200, cost: 50, remaining: 50, retryAfter: null },
        { t: 2, status: 429, cost: 90, remaining: 70, retryAfter: 2 },
        { t: 10, status: 200, cost: 10, remaining: 90, retryAfter: null },
      ]),
    );
    expect(line).toEqual([
      [0, 100], // before the first request was charged
      [0, 50],
      [2, 70], // refilled 2 s × 10/s
      [2, 70], // the 429 took nothing
      [5, 100], // full after 3 more seconds...
      [10, 100], // ...and flat until the next request
      [10, 90],
    ]);
  });

  it('is well-formed SVG with one series per caller, names escaped, rejections marked', () => {
    const svg = renderBudgetChart({
      title: 'a <b> & "c"',
      phases: [{ name: 'burst & co', start: 0, end: 1 }],
      series: [
        caller('x<y', [{ t: 0.5, status: 429, cost: 150, remaining: 100, retryAfter: null }]),
        caller('z', [{ t: 0.5, status: 200, cost: 1, remaining: 99, retryAfter: null }]),
      ],
    });
    const root = parseXml(svg);
    const series = allElements(root).filter((e) => e.attributes.class === 'series');
    expect(series.map((e) => e.attributes['data-caller'])).toEqual(['x<y', 'z']);
    expect(series[0]?.children.filter((e) => e.attributes.class === 'rejected')).toHaveLength(1);
    expect(series[1]?.children.filter((e) => e.attributes.class === 'allowed')).toHaveLength(1);
  });

  it('still draws a caller whose responses carried no throttle status (store unavailable)', () => {
    const svg = renderBudgetChart({
      title: 't',
      phases: [],
      series: [
        {
          name: 'n',
          tier: 'free',
          capacity: 0,
          refillPerSecond: 0,
          samples: [{ t: 1, status: 200, cost: 3, remaining: null, retryAfter: null }],
        },
      ],
    });
    expect(svg).not.toContain('NaN');
    expect(svg).not.toContain('Infinity');
    expect(parseXml(svg).name).toBe('svg');
  });
});
