/**
 * HTML of the embedded provider: sign-in page, sign-out confirmation, error pages, and the two
 * static assets they use. No inline script anywhere (the server's CSP is script-src 'self').
 */

export const STATIC_PREFIX = '/identity/static/';
export const STYLESHEET_PATH = `${STATIC_PREFIX}identity.css`;
export const AUTOSUBMIT_PATH = `${STATIC_PREFIX}autosubmit.js`;

export const staticAssets: Record<string, { type: string; body: string }> = {
  [STYLESHEET_PATH]: {
    type: 'text/css; charset=utf-8',
    body: `*{box-sizing:border-box}
body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;background:#f1f3f5;color:#212529;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{width:100%;max-width:380px;margin:24px;padding:32px;background:#fff;border-radius:8px;box-shadow:0 1px 3px rgba(0,0,0,.12),0 4px 12px rgba(0,0,0,.06)}
h1{margin:0 0 24px;font-size:1.5rem;font-weight:600;text-align:center}
label{display:block;margin:16px 0 4px;font-weight:500}
input[type=email],input[type=password]{display:block;width:100%;padding:8px 12px;font:inherit;border:1px solid #adb5bd;border-radius:4px}
input:focus,button:focus,a:focus{outline:3px solid #74c0fc;outline-offset:1px}
button{display:block;width:100%;margin-top:24px;padding:10px 12px;font:inherit;font-weight:600;color:#fff;background:#1c7ed6;border:0;border-radius:4px;cursor:pointer}
button:hover{background:#1971c2}
.alert{margin:0 0 8px;padding:10px 12px;color:#862e2e;background:#fff5f5;border:1px solid #ffc9c9;border-radius:4px}
p{margin:0 0 12px}
a{color:#1971c2}
`,
  },
  [AUTOSUBMIT_PATH]: {
    type: 'text/javascript; charset=utf-8',
    body: `'use strict';
document.addEventListener('DOMContentLoaded', function () {
  var form = document.querySelector('form[data-autosubmit]');
  if (form) form.submit();
});
`,
  },
};

export function escapeHtml(value: unknown): string {
  return String(value ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

function layout(title: string, body: string, script = false): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${STYLESHEET_PATH}">
${script ? `<script src="${AUTOSUBMIT_PATH}" defer></script>\n` : ''}</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

export const LOGIN_TITLE = 'Sign in to Tributary';

export function loginPage(opts: { action: string; email?: string; error?: string }): string {
  const invalid = opts.error ? ' aria-invalid="true" aria-describedby="login-error"' : '';
  return layout(LOGIN_TITLE, `<h1>${LOGIN_TITLE}</h1>
${opts.error ? `<p role="alert" id="login-error" class="alert">${escapeHtml(opts.error)}</p>\n` : ''}<form method="post" action="${escapeHtml(opts.action)}" novalidate>
<label for="email">E-mail</label>
<input id="email" name="email" type="email" autocomplete="username" required${opts.email ? ` value="${escapeHtml(opts.email)}"` : ' autofocus'}${invalid}>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required${opts.email ? ' autofocus' : ''}${invalid}>
<button type="submit">Sign in</button>
</form>`);
}

/**
 * An auto-submitted POST form (the script is external), with a visible button when scripts do not run.
 * actionHtml and inputsHtml must already be HTML-escaped.
 */
export function autoSubmitPage(opts: { title: string; heading: string; actionHtml: string; inputsHtml: string; button: string }): string {
  return layout(opts.title, `<h1>${escapeHtml(opts.heading)}</h1>
<form method="post" action="${opts.actionHtml}" data-autosubmit>
${opts.inputsHtml}
<button type="submit">${escapeHtml(opts.button)}</button>
</form>`, true);
}

export function messagePage(opts: { title: string; message: string; link?: { href: string; text: string } }): string {
  return layout(opts.title, `<h1>${escapeHtml(opts.title)}</h1>
<p>${escapeHtml(opts.message)}</p>
${opts.link ? `<p><a href="${escapeHtml(opts.link.href)}">${escapeHtml(opts.link.text)}</a></p>` : ''}`);
}
