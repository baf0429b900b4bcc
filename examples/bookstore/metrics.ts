import { metrics } from '@opentelemetry/api';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';

/**
 * When `METRICS_PORT` is set, registers an OpenTelemetry SDK whose Prometheus exporter serves
 * `http://localhost:<port>/metrics`: the budget plugin's metrics (`cost.estimated`, `cost.actual`,
 * `cost.delta`, `budget.store.duration`, …) as Prometheus scrapes them. Returns a line to log, or
 * undefined when metrics are off.
 */
export async function metricsFromEnv(
  env: NodeJS.ProcessEnv,
): Promise<{ line: string; stop(): Promise<void> } | undefined> {
  const value = env.METRICS_PORT;
  if (value === undefined || value === '') return undefined;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new RangeError(`METRICS_PORT must be a whole number from 0 to 65535; got "${value}".`);
  }
  const exporter = await new Promise<PrometheusExporter>((resolve, reject) => {
    const created: PrometheusExporter = new PrometheusExporter({ port, host: '127.0.0.1' }, (error) =>
      error ? reject(error) : resolve(created),
    );
  });
  const provider = new MeterProvider({ readers: [exporter] });
  metrics.setGlobalMeterProvider(provider);
  return {
    line: `Metrics for Prometheus at http://127.0.0.1:${port}/metrics`,
    stop: () => provider.shutdown(),
  };
}
