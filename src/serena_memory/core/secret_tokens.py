"""Token formats the secret gate (core/secrets.py) knows beyond detect-secrets: each
provider's published shape, written here from its documentation (the set of providers
follows the gitleaks rule set), and the webhook and signed URLs that are credentials
themselves.

They run as a few RE2 patterns (google-re2), each of a group of shapes: time linear in the
line's length whatever the line holds. Each shape is bounded by what must follow its
prefix, so prose about a format (``hvs.`` is a Vault token) is not one.
"""

from __future__ import annotations

from functools import cache
from typing import Any

# (kind, pattern): the kind names the provider in the refusal and its placeholder
TOKENS: tuple[tuple[str, str], ...] = (
    # AI providers
    ("Anthropic API key", r"sk-ant-(?:api|admin)\d\d-[A-Za-z0-9_-]{80,}"),
    ("OpenAI API key", r"sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}"),
    ("OpenRouter API key", r"sk-or-v1-[a-f0-9]{64}"),
    ("DeepSeek API key", r"\bsk-[a-f0-9]{32}\b"),
    (
        "Langfuse secret key",
        r"\bsk-lf-[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}\b",
    ),
    ("ElevenLabs API key", r"\bsk_[a-f0-9]{48}\b"),
    ("Groq API key", r"gsk_[A-Za-z0-9]{52}"),
    ("Perplexity API key", r"pplx-[A-Za-z0-9]{48}"),
    ("xAI API key", r"xai-[A-Za-z0-9]{80}"),
    ("Replicate API token", r"r8_[A-Za-z0-9]{37}"),
    ("LangSmith API key", r"lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}"),
    ("Hugging Face token", r"(?:hf|api_org)_[A-Za-z]{34}"),
    # Google, Microsoft, cloud platforms
    ("Google API key", r"AIza[0-9A-Za-z_-]{35}"),
    ("Google OAuth client secret", r"GOCSPX-[A-Za-z0-9_-]{28}"),
    ("Firebase Cloud Messaging server key", r"\bAAAA[A-Za-z0-9_-]{7}:APA91b[A-Za-z0-9_-]{100,}"),
    ("Google OAuth access token", r"ya29\.[A-Za-z0-9_-]{40,}"),
    ("Google OAuth refresh token", r"1//0[A-Za-z0-9_-]{40,}"),
    ("Google Calendar private address", r"/private-[a-f0-9]{32}/"),
    ("Azure AD client secret", r"[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}"),
    # a SAS signature, or a Logic App trigger's (base64url: `-` and `_`)
    ("Azure SAS signature", r"[?&]sig=[A-Za-z0-9%+/_-]{30,}"),
    # a CloudFront signed URL's signature (its own base64, `~` and `-` for `=` and `+`), or
    # a V2 signed URL's (Google Cloud Storage's: base64, URL-encoded)
    ("CloudFront signed URL", r"[?&]Signature=[A-Za-z0-9~_-]{60,}"),
    ("signed URL", r"[?&]Signature=[A-Za-z0-9~_%+/-]{60,}"),
    # a V4 signed URL's signature (S3's, Google Cloud Storage's): whoever holds it reads
    ("signed URL", r"[?&]X-(?:Amz|Goog)-Signature=[a-f0-9]{64,}"),
    # an Azure Functions key in its URL (`?code=`, base64 that ends in padding); an OAuth
    # callback's one-time code has none
    ("Azure Functions key", r"[?&]code=[A-Za-z0-9_/+-]{40,}={1,2}"),
    ("Vault token", r"\bhv[sbr]\.[A-Za-z0-9_-]{24,}"),
    ("DigitalOcean token", r"\bdo[por]_v1_[a-f0-9]{64}"),
    ("Databricks token", r"\bdapi[a-f0-9]{32}"),
    ("Alibaba Cloud access key", r"\bLTAI[A-Za-z0-9]{20}\b"),
    ("Heroku API key", r"\bHRKU-[A-Za-z0-9_-]{60}"),
    ("Fly.io token", r"FlyV1 fm[12][ar]?_[A-Za-z0-9+/=_-]{40,}|\bfo1_[A-Za-z0-9_-]{43}"),
    ("Netlify token", r"\bnf[pc]_[A-Za-z0-9]{36,}"),
    ("Render API key", r"\brnd_[A-Za-z0-9]{32}"),
    ("Supabase token", r"\bsbp_[a-f0-9]{40}|\bsb_secret_[A-Za-z0-9_-]{20,}"),
    ("PlanetScale token", r"\bpscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.=-]{32,64}"),
    ("Pulumi token", r"\bpul-[a-f0-9]{40}"),
    ("Terraform Cloud token", r"\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,}"),
    # a service token may name its config: dp.st.prd.TOKEN
    (
        "Doppler token",
        r"\bdp\.(?:pt|st|sa|ct|scim|audit)\.(?:[a-z0-9_-]{1,40}\.)?[A-Za-z0-9]{40,44}",
    ),
    # a JWT encoded again in base64 (a Kubernetes Secret's data): {"alg" or {"typ" first
    ("JSON Web Token in base64", r"\bZXlK(?:aGJHY2lPaU|MGVYQWlPaUp)[A-Za-z0-9+/]{40,}"),
    ("1Password service account token", r"\bops_eyJ[A-Za-z0-9+/=_-]{100,}"),
    ("age secret key", r"AGE-SECRET-KEY-1[0-9A-Z]{58}"),
    # a Nostr private key in bech32 (its public key is npub1...)
    ("Nostr private key", r"\bnsec1[02-9ac-hj-np-z]{58}\b"),
    ("Cloudflare origin CA key", r"\bv1\.0-[a-f0-9]{24}-[a-f0-9]{146}"),
    ("Scalingo token", r"\btk-us-[A-Za-z0-9_-]{48}"),
    ("Infracost API key", r"\bico-[A-Za-z0-9]{32}\b"),
    ("Prefect API key", r"\bpnu_[A-Za-z0-9]{36}"),
    # Amazon Bedrock: a long-lived key, or a short-lived one (base64 of its service's host)
    ("Amazon Bedrock API key", r"\bABSK[A-Za-z0-9+/]{100,}|bedrock-api-key-YmVkcm9jay5"),
    (
        "Yandex Cloud token",
        r"\bt1\.[A-Za-z0-9_-]{8,}={0,2}\.[A-Za-z0-9_-]{86}|\bAQVN[A-Za-z0-9_-]{35,38}\b",
    ),
    ("OpenShift token", r"\bsha256~[A-Za-z0-9_-]{43}(?:[^A-Za-z0-9_-]|$)"),
    ("ClickHouse Cloud key", r"\b4b1d[A-Za-z0-9]{38}\b"),
    (
        "1Password secret key",
        r"\bA3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})(?:-[A-Z0-9]{5}){3}\b",
    ),
    ("Defined Networking token", r"\bdnkey-[A-Za-z0-9_=-]{26}-[A-Za-z0-9_=-]{52}"),
    (
        "Authress key",
        r"\b(?:sc|ext|scauth|authress)_[A-Za-z0-9]{5,30}\.[A-Za-z0-9]{4,6}\.acc[_-][a-z0-9-]{10,32}"
        r"\.[A-Za-z0-9+/_=-]{30,}",
    ),
    ("SettleMint token", r"\bsm_[aps]at_[A-Za-z0-9]{16}\b"),
    ("Tailscale key", r"\btskey-(?:auth|api|client|webhook|scim)-[A-Za-z0-9]{6,}-[A-Za-z0-9]{20,}"),
    # a HubSpot private app's token (pat-, its region, then a UUID)
    ("HubSpot token", r"\bpat-(?:na|eu|ap)\d-[a-f0-9]{8}(?:-[a-f0-9]{4}){3}-[a-f0-9]{12}\b"),
    # PostHog's personal API key (its project key, phc_, is sent by browsers)
    ("PostHog personal API key", r"\bphx_[A-Za-z0-9]{40,}"),
    ("Octopus Deploy API key", r"\bAPI-[A-Z0-9]{26}\b"),
    # code hosts, CI, package registries, developer tools
    ("GitHub token", r"\bgithub_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59}|\bgh[pousr]_[A-Za-z0-9]{36}"),
    (
        "GitLab token",
        r"\bgl(?:pat|dt|rt|ptt|oas|cbt|imt|soat|ffct|ft|agent|wt)-[A-Za-z0-9_-]{20,}"
        r"|\bGR1348941[A-Za-z0-9_-]{20}|_gitlab_session=[a-z0-9]{32}",
    ),
    ("Bitbucket token", r"\bATBB[A-Za-z0-9_=.-]{32,}"),
    ("Atlassian API token", r"\bAT(?:ATT|CTT)3[A-Za-z0-9_=-]{60,}"),
    ("Linear API key", r"\blin_(?:api|oauth)_[A-Za-z0-9]{40}"),
    ("Asana token", r"\b[12]/\d{13,16}(?:/\d{13,16})?:[a-f0-9]{32}"),
    ("Notion token", r"\bntn_\d{11}[A-Za-z0-9]{35}|\bsecret_[A-Za-z0-9]{43}\b"),
    ("Airtable token", r"\bpat[A-Za-z0-9]{14}\.[a-f0-9]{64}"),
    ("Figma token", r"\bfigd_[A-Za-z0-9_-]{40}"),
    ("Postman API key", r"\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}"),
    ("Contentful token", r"\bCFPAT-[A-Za-z0-9_-]{43}"),
    ("Typeform token", r"\btfp_[A-Za-z0-9_.=-]{59}"),
    # Segment's Public API token (its write key, sent by browsers, has no prefix)
    ("Segment API token", r"\bsgp_[A-Za-z0-9]{64}\b"),
    ("Sourcegraph token", r"\bsgp_(?:[a-f0-9]{16}_)?[a-f0-9]{40}"),
    # (or a token given as sonar.login, the property's old name: 40 hex digits)
    (
        "SonarQube token",
        r"\bsq[pua]_[a-f0-9]{40}|(?i:sonar[._-]login)[\"']?\s*[:=]\s*[\"']?[a-f0-9]{40}\b",
    ),
    ("CircleCI token", r"\bCCIPAT_[A-Za-z0-9]{22}_[a-f0-9]{40}"),
    ("Buildkite token", r"\bbkua_[a-f0-9]{40}"),
    ("Harness token", r"\b[ps]at\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}"),
    ("npm token", r"\bnpm_[A-Za-z0-9]{36}"),
    ("PyPI token", r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}"),
    ("RubyGems API key", r"\brubygems_[a-f0-9]{48}"),
    ("NuGet API key", r"\boy2[a-z0-9]{43}\b"),
    ("Docker Hub token", r"\bdckr_(?:pat|oat)_[A-Za-z0-9_-]{27,}"),
    ("Clojars token", r"\bCLOJARS_[a-z0-9]{60}"),
    ("ReadMe API key", r"\brdme_[a-z0-9]{70}"),
    ("Artifactory reference token", r"\bcmVmd[A-Za-z0-9]{59}\b"),
    # the Sidekiq Pro/Enterprise licence given to Bundler: BUNDLE_GEMS__CONTRIBSYS__COM=hex:hex
    ("Sidekiq licence", r"(?i:contribsys__com)[\"']?\s*[:=]\s*[\"']?[a-f0-9]{8}:[a-f0-9]{8}\b"),
    ("MaxMind licence key", r"\b[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk\b"),
    ("Adobe client secret", r"\bp8e-[A-Za-z0-9]{32}\b"),
    ("42 intra client secret", r"\bs-s4t2(?:ud|af)-[a-f0-9]{64}\b"),
    ("crates.io token", r"\bcio[A-Za-z0-9]{32}\b"),
    ("Pinecone API key", r"\bpcsk_[A-Za-z0-9]{4,8}_[A-Za-z0-9]{40,}"),
    # a LaunchDarkly server SDK key or API access token (its mobile key, mob-, is sent by apps)
    (
        "LaunchDarkly key",
        r"\b(?:sdk|api)-[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}\b",
    ),
    # an ngrok authtoken: a digit, 26 characters, `_`, 21 characters
    ("ngrok authtoken", r"\b[12][A-Za-z0-9]{26}_[A-Za-z0-9]{21}\b"),
    # observability
    ("Sentry token", r"\bsntry[su]_[A-Za-z0-9+/=_-]{40,}"),
    # Honeycomb: an ingest or a management key (hc, its kind, ik or mk, then the key)
    ("Honeycomb key", r"\bhc[a-z][im]k_[a-z0-9]{50,}\b"),
    (
        "Grafana token",
        # a service account's, a cloud token, a legacy API key (base64 of {"k":")
        r"\bglsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|\bglc_[A-Za-z0-9+/=_-]{32,}"
        r"|\beyJrIjoi[A-Za-z0-9]{70,}",
    ),
    # a user, insert or admin key; an insert key of both cases (32 characters, hyphens
    # among them); a REST API key; an ingest license key (NRAL at its end)
    (
        "New Relic key",
        r"\bNR(?:AK|II|AA)-[A-Z0-9]{27}|\bNRII-[A-Za-z0-9_-]{32}(?:[^A-Za-z0-9_-]|$)"
        r"|\bNRRA-[a-f0-9]{42}\b|\b[a-f0-9]{36}NRAL\b",
    ),
    ("Dynatrace token", r"\bdt0c01\.[A-Z0-9]{24}\.[A-Z0-9]{64}"),
    ("PagerDuty API key", r"(?:^|[\s`'\":=])u\+[A-Za-z0-9_+-]{18}(?:$|[\s`'\",;])"),
    # payments, commerce, messaging
    ("Stripe webhook secret", r"\bwhsec_[A-Za-z0-9]{24,}"),
    # GoCardless's access token (live_ or sandbox_, then 40 of base64url); Lob's secret
    # key (live_ or test_, then 35 hex digits; its publishable one is live_pub_)
    ("GoCardless access token", r"\b(?:live|sandbox)_[A-Za-z0-9_-]{40}(?:[^A-Za-z0-9_-]|$)"),
    ("Lob API key", r"\b(?:live|test)_[a-f0-9]{35}\b"),
    # an Intercom access token: base64 of `tok:` and the token
    # a Beamer API key (b_ and 44 of small letters, digits, `_`, `-`, `=`), given to
    # Beamer's name: the prefix alone is too short to tell it from a word
    (
        "Beamer API key",
        r"(?i:beamer)[\w.-]{0,20}[\"'`]?\s*[:=]\s*[\"'`]?b_[a-z0-9=_-]{44}(?:[^a-z0-9=_-]|$)",
    ),
    ("Intercom access token", r"\bdG9rOj[A-Za-z0-9+/_-]{40,}={0,2}"),
    ("Stripe secret key", r"\b[rs]k_(?:live|test|prod)_[A-Za-z0-9]{20,}"),
    ("Shopify token", r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}"),
    ("Facebook access token", r"\bEAA[A-Z][A-Za-z0-9]{90,}"),
    # an app access token: the app's id, a bar (or its URL encoding), the app's secret (32
    # hex digits) or an old token (27 characters)
    ("Facebook app access token", r"\b\d{15,16}(?:\||%7C)(?:[a-f0-9]{32}|[A-Za-z0-9_-]{27})\b"),
    ("Square token", r"\bEAAA[A-Za-z0-9_-]{60}|\bsq0(?:atp|csp)-[A-Za-z0-9_-]{22,43}"),
    ("Braintree token", r"access_token\$production\$[a-z0-9]{16}\$[a-f0-9]{32}"),
    ("Flutterwave key", r"\bFLWSECK(?:_TEST)?-[a-f0-9]{32}-X|\bFLWSECK_TEST-[a-h0-9]{12}\b"),
    (
        "Plaid access token",
        r"\baccess-(?:sandbox|development|production)-[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}"
        r"-[a-f0-9]{4}-[a-f0-9]{12}",
    ),
    ("Shippo token", r"\bshippo_(?:live|test)_[a-fA-F0-9]{40}"),
    ("EasyPost API key", r"\bEZ[AT]K[A-Za-z0-9]{54}\b"),
    ("Duffel token", r"\bduffel_(?:live|test)_[A-Za-z0-9_=-]{43}"),
    ("Mailgun API key", r"\bkey-[a-f0-9]{32}\b|\b[a-f0-9]{32}-[a-f0-9]{8}-[a-f0-9]{8}\b"),
    ("Brevo API key", r"\bx(?:keysib|smtpsib)-[a-f0-9]{64}-[A-Za-z0-9]{16}"),
    ("Resend API key", r"\bre_[A-Za-z0-9]{8}_[A-Za-z0-9]{24}"),
    ("Mapbox secret token", r"\bsk\.eyJ[A-Za-z0-9_-]{50,}\.[A-Za-z0-9_-]{20,}"),
    # a short-lived token, or a long-lived one (ten A's after its app's id)
    ("Dropbox token", r"\bsl\.[A-Za-z0-9_-]{130,}|\b[a-z0-9]{11}A{10}[A-Za-z0-9_=-]{43}"),
    # an app-only bearer token (X's, formerly Twitter's): 21 or 22 A's, then the encoded
    # token, URL-safe and percent-encoded
    ("Twitter bearer token", r"\bA{21}[A-Za-z0-9%_-]{30,}"),
    ("Frame.io token", r"\bfio-u-[A-Za-z0-9_=-]{64}"),
    (
        "Slack token",
        r"\bxox[abposer]-(?:\d+-)+[A-Za-z0-9-]{20,}|\bxapp-\d-[A-Z0-9]+-\d+-[a-f0-9]{30,}"
        # a configuration token and its refresh token
        r"|\bxoxe(?:\.xox[bp])?-\d-[A-Za-z0-9]{100,}",
    ),
    # URLs that are credentials themselves
    (
        "Slack webhook",
        r"hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_]{8,}/[A-Za-z0-9_/]{12,}",
    ),
    ("Discord webhook", r"discord(?:app)?\.com/api/webhooks/\d{15,22}/[A-Za-z0-9_-]{50,}"),
    (
        "Microsoft Teams webhook",
        r"\.webhook\.office\.com/webhookb2/[A-Za-z0-9@-]+/IncomingWebhook/[a-f0-9]{32}/",
    ),
    ("Mattermost webhook", r"/hooks/[a-z0-9]{26}\b"),
    ("Zapier webhook", r"hooks\.zapier\.com/hooks/catch/\d+/[a-z0-9]{5,}"),
    # chat bots' webhooks whose path or query is the token: Feishu's and Lark's, DingTalk's,
    # WeCom's
    (
        "chat bot webhook",
        r"open\.(?:feishu\.cn|larksuite\.com)/open-apis/bot/v2/hook/[A-Za-z0-9-]{20,}"
        r"|oapi\.dingtalk\.com/robot/send\?access_token=[a-f0-9]{40,}"
        r"|qyapi\.weixin\.qq\.com/cgi-bin/webhook/send\?key=[A-Za-z0-9-]{20,}",
    ),
    # a Twilio account's SID, then its auth token (32 hex digits) beside it, as a client
    # is given both: Twilio.init("AC...", "TOKEN"), TwilioClient(SID, TOKEN)
    ("Twilio auth token", r"\bAC[a-f0-9]{32}\b[^A-Za-z0-9\n]{1,12}[a-f0-9]{32}\b"),
)


def linear(pattern: str) -> Any:
    """``pattern`` compiled by RE2: it matches in time linear in the text's length, so no
    line a memory holds can make the gate take long (no backtracking, as :mod:`re` does)."""
    import re2  # type: ignore[import-untyped]

    options = re2.Options()
    # room for the DFA of a group of providers' shapes: with RE2's default (8 MiB) it runs
    # out and falls back to a slower matcher, still linear
    options.max_mem = DFA_MEMORY
    return re2.compile(pattern, options)


DFA_MEMORY = 32 << 20


SHORTEST = 20  # no shape above matches fewer characters (PagerDuty's key: u+ and 18)
# shapes per RE2 pattern: the DFA of every shape at once outgrows its memory and RE2 falls
# back to a matcher twenty times slower; two groups each keep theirs (each group a pass)
GROUP = 64


@cache
def _compiled() -> tuple[tuple[Any, tuple[str, ...]], ...]:
    """(pattern, kinds) for each group of shapes, a regex group per kind (compiled on the
    first scan)."""
    groups = (TOKENS[start : start + GROUP] for start in range(0, len(TOKENS), GROUP))
    return tuple(
        (linear("|".join(f"({pattern})" for _, pattern in group)), tuple(k for k, _ in group))
        for group in groups
    )


def find(line: str) -> list[tuple[str, str]]:
    """(kind, token) for each provider token in ``line``, in order (by where it starts; at
    one place, in the order of :data:`TOKENS`)."""
    if len(line) < SHORTEST:
        return []
    found = []
    for order, (pattern, kinds) in enumerate(_compiled()):
        for match in pattern.finditer(line):
            index = match.lastindex
            if index is not None:
                token = match.group(index).strip(" `'\":=,;")
                found.append((match.start(index), order, kinds[index - 1], token))
    return [(kind, token) for _, _, kind, token in sorted(found)]
