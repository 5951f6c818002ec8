/**
 * Authorises each Bedrock request just before it is sent (`streaming-post.ts`
 * calls it): SigV4 with credentials from the AWS chain, a Bedrock API key as
 * a bearer token, or nothing for a gateway that signs on our behalf.
 */

import { Hash } from "@smithy/hash-node";
import { SignatureV4 } from "@smithy/signature-v4";
import type { OutgoingRequest, RequestSigner } from "../types";
import type { AwsCredentials, AwsCredentialSource } from "./aws-credentials";
import type { BedrockAuthMode } from "./bedrock-config";

/** Bedrock's signing name, for the runtime and the control plane alike. */
export const BEDROCK_SIGNING_NAME = "bedrock";

export function createBedrockSigner(
    mode: BedrockAuthMode,
    region: () => Promise<string>,
    credentials: AwsCredentialSource
): RequestSigner {
    // Resolved just before each signature, with the request's signal.
    let current: AwsCredentials | undefined;
    const sigv4 = new SignatureV4({
        service: BEDROCK_SIGNING_NAME,
        region,
        credentials: async () => current ?? credentials(),
        sha256: Hash.bind(null, "sha256"),
    });
    return {
        async sign(request: OutgoingRequest, signal: AbortSignal): Promise<void> {
            if (mode.kind === "none") return;
            if (mode.kind === "bearer") {
                request.headers.authorization = `Bearer ${mode.token}`;
                return;
            }
            current = await credentials(signal);
            const { url } = request;
            const query: Record<string, string> = {};
            for (const [name, value] of url.searchParams) query[name] = value;
            // The path stays as sent (the model id already escaped); the signer escapes it again, as SigV4 wants.
            const signed = await sigv4.sign({
                method: request.method,
                protocol: url.protocol,
                hostname: url.hostname,
                ...(url.port ? { port: Number(url.port) } : {}),
                path: url.pathname,
                query,
                headers: { ...request.headers, host: url.host },
                body: request.body,
            });
            for (const [name, value] of Object.entries(signed.headers)) {
                request.headers[name.toLowerCase()] = value;
            }
        },
    };
}
