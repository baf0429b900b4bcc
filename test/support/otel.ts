import { metrics } from '@opentelemetry/api';
import { MeterProvider, MetricReader, type DataPoint, type Histogram } from '@opentelemetry/sdk-metrics';

/** A metric reader that exports nothing: tests call `collect()` themselves. */
class CollectingReader extends MetricReader {
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

/** One data point as a test reads it. */
export interface Point {
  /** The meter that recorded it: `name@version`. */
  scope: string;
  name: string;
  unit: string;
  attributes: Record<string, unknown>;
  /** A histogram's count, sum and min/max; a counter's value as `sum` with count 1. */
  count: number;
  sum: number;
  min?: number;
  max?: number;
}

/**
 * Registers a real OpenTelemetry SDK MeterProvider as the global one (replacing any earlier) and
 * returns a way to read every data point recorded since. Build the plugin after calling this.
 */
export function installMeterProvider(): { collect(): Promise<Point[]>; shutdown(): Promise<void> } {
  metrics.disable();
  const reader = new CollectingReader();
  const provider = new MeterProvider({ readers: [reader] });
  metrics.setGlobalMeterProvider(provider);
  return {
    async collect() {
      const { resourceMetrics, errors } = await reader.collect();
      if (errors.length > 0) throw errors[0];
      const points: Point[] = [];
      for (const scope of resourceMetrics.scopeMetrics) {
        for (const metric of scope.metrics) {
          for (const point of metric.dataPoints as DataPoint<number | Histogram>[]) {
            const value = point.value;
            const base = {
              scope: `${scope.scope.name}@${scope.scope.version ?? ''}`,
              name: metric.descriptor.name,
              unit: metric.descriptor.unit,
              attributes: { ...point.attributes },
            };
            if (typeof value === 'number') points.push({ ...base, count: 1, sum: value });
            else points.push({ ...base, count: value.count, sum: value.sum ?? 0, min: value.min, max: value.max });
          }
        }
      }
      return points;
    },
    async shutdown() {
      await provider.shutdown();
      metrics.disable();
    },
  };
}
