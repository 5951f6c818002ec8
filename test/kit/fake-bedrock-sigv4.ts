/**
 * The fake Bedrock's SigV4 check, recomputed with the `aws4` package (an
 * implementation independent of the Smithy signer North uses), as AWS checks
 * it: known key, scope (date, region, service), clock skew, session token,
 * payload hash, then the signature over exactly the headers the request signed.
 */

import { createHash } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import aws4 from "aws4";

export interface FakeAwsKey {
    secretAccessKey: string;
    sessionToken?: string;
    /** Answer 403 ExpiredTokenException, as AWS does for an expired session. */
    expired?: boolean;
}

export interface SigV4Request {
    method: string;
    /** Path and query as received. */
    url: string;
    headers: IncomingHttpHeaders;
    body: Buffer;
}

export interface SigV4Refusal {
    status: number;
    type: string;
    message: string;
}

export type SigV4Outcome = { ok: true; accessKeyId: string } | ({ ok: false } & SigV4Refusal);

const MAX_SKEW_MS = 5 * 60 * 1000;

export function verifySigV4(
    request: SigV4Request,
    expect: { keys: Map<string, FakeAwsKey>; region: string; service: string; now?: number }
): SigV4Outcome {
    const refuse = (type: string, message: string, status = 403): SigV4Outcome => ({
        ok: false,
        status,
        type,
        message,
    });
    const header = (name: string): string | undefined => {
        const value = request.headers[name];
        return Array.isArray(value) ? value.join(",") : value;
    };
    const auth = header("authorization") ?? "";
    const match =
        /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/.exec(
            auth
        );
    if (!match) {
        return refuse(
            "MissingAuthenticationTokenException",
            "Missing Authentication Token",
            auth ? 400 : 403
        );
    }
    const [, accessKeyId, scopeDate, region, service, signedList, signature] = match as unknown as [
        string,
        string,
        string,
        string,
        string,
        string,
        string,
    ];
    const key = expect.keys.get(accessKeyId);
    if (!key) {
        return refuse(
            "UnrecognizedClientException",
            "The security token included in the request is invalid."
        );
    }
    if (region !== expect.region) {
        return refuse(
            "InvalidSignatureException",
            `Credential should be scoped to a valid region. `
        );
    }
    if (service !== expect.service) {
        return refuse(
            "InvalidSignatureException",
            `Credential should be scoped to correct service: '${expect.service}'. `
        );
    }
    const amzDate = header("x-amz-date");
    if (!amzDate || !/^\d{8}T\d{6}Z$/.test(amzDate)) {
        return refuse(
            "IncompleteSignatureException",
            "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header.",
            400
        );
    }
    const when = Date.parse(
        `${amzDate.slice(0, 4)}-${amzDate.slice(4, 6)}-${amzDate.slice(6, 8)}T${amzDate.slice(9, 11)}:${amzDate.slice(11, 13)}:${amzDate.slice(13, 15)}Z`
    );
    if (Math.abs((expect.now ?? Date.now()) - when) > MAX_SKEW_MS) {
        return refuse(
            "InvalidSignatureException",
            `Signature expired: ${amzDate} is now earlier or later than the allowed skew.`
        );
    }
    if (scopeDate !== amzDate.slice(0, 8)) {
        return refuse(
            "InvalidSignatureException",
            "Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP."
        );
    }
    const signed = signedList.split(";");
    if (!signed.includes("host")) {
        return refuse(
            "InvalidSignatureException",
            "'Host' must be a 'SignedHeader' in the AWS Authorization."
        );
    }
    if (key.sessionToken !== undefined) {
        if (
            header("x-amz-security-token") !== key.sessionToken ||
            !signed.includes("x-amz-security-token")
        ) {
            return refuse(
                "UnrecognizedClientException",
                "The security token included in the request is invalid."
            );
        }
    }
    if (key.expired) {
        return refuse(
            "ExpiredTokenException",
            "The security token included in the request is expired"
        );
    }
    const payloadHash = header("x-amz-content-sha256");
    if (
        payloadHash !== undefined &&
        payloadHash !== createHash("sha256").update(request.body).digest("hex")
    ) {
        return refuse(
            "InvalidSignatureException",
            "The provided 'x-amz-content-sha256' header does not match what was computed.",
            400
        );
    }
    const headers: Record<string, string> = {};
    for (const name of signed) {
        const value = header(name);
        if (value === undefined) {
            return refuse("InvalidSignatureException", `Signed header ${name} is missing.`);
        }
        headers[name] = value;
    }
    const ignore: Record<string, boolean> = {};
    for (const name of ["content-type", "content-length", "x-amz-security-token"]) {
        if (!signed.includes(name)) ignore[name] = true;
    }
    const recomputed = aws4.sign(
        {
            method: request.method,
            host: headers.host,
            path: request.url,
            headers,
            body: request.body.length > 0 ? request.body : undefined,
            service,
            region,
            extraHeadersToIgnore: ignore,
        } as aws4.Request & { extraHeadersToIgnore: Record<string, boolean> },
        {
            accessKeyId,
            secretAccessKey: key.secretAccessKey,
            ...(key.sessionToken !== undefined ? { sessionToken: key.sessionToken } : {}),
        }
    );
    const expected = /Signature=([0-9a-f]{64})/.exec(
        String(recomputed.headers?.Authorization)
    )?.[1];
    if (expected !== signature) {
        return refuse(
            "InvalidSignatureException",
            "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details."
        );
    }
    return { ok: true, accessKeyId };
}
