/**
 * OpenTelemetry spans over OTLP/HTTP (JSON), when `OTEL_EXPORTER_OTLP_ENDPOINT` is set: each
 * request's span and the domain's spans beneath it, batched and flushed on shutdown.
 *
 * @since 0.1.0
 */
import * as OtlpSerialization from "@effect/opentelemetry/OtlpSerialization"
import * as OtlpTracer from "@effect/opentelemetry/OtlpTracer"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as Layer from "effect/Layer"

/** @since 0.1.0 @category models */
export interface OtlpOptions {
  /** The collector's base URL (`OTEL_EXPORTER_OTLP_ENDPOINT`); spans go to `<endpoint>/v1/traces`. */
  readonly endpoint: string
  /** `OTEL_SERVICE_NAME`, default "kassa". */
  readonly serviceName: string
}

/** The tracer exporting to the collector. @since 0.1.0 @category layers */
export const layer = (options: OtlpOptions) =>
  OtlpTracer.layer({
    url: `${options.endpoint.replace(/\/+$/, "")}/v1/traces`,
    resource: { serviceName: options.serviceName }
  }).pipe(Layer.provide(OtlpSerialization.layerJson), Layer.provide(FetchHttpClient.layer))
