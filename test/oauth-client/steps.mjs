// What the library flows (flow.mjs, oidc_flow.mjs) share: steps that print
// "ok <step>" or, on the first failure, "FAIL <step>: why" and exit 1; and
// the user agent's part of a sign-in, reading the authorize page's form.

// steps(describe): {fail, step, assert}, describe(err) being how the flow
// explains an error of its library
export function steps(describe) {
  function fail(name, err) {
    console.log(`FAIL ${name}: ${describe(err)}`)
    process.exit(1)
  }
  async function step(name, fn) {
    let result
    try {
      result = await fn()
    } catch (err) {
      fail(name, err)
    }
    console.log(`ok ${name}`)
    return result
  }
  function assert(cond, message) {
    if (!cond) throw new Error(message)
  }
  return { fail, step, assert }
}

const unescapeHtml = (s) => s
  .replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"')
  .replace(/&#39;/g, "'").replace(/&#x27;/g, "'").replace(/&amp;/g, '&')

// parseForm(html, pageUrl): the sign-in form's action and hidden fields
export function parseForm(html, pageUrl) {
  const form = html.match(/<form\b[^>]*\baction="([^"]*)"[^>]*>/i)
  if (!form) throw new Error('no <form action> in the authorize page')
  const fields = new URLSearchParams()
  for (const m of html.matchAll(/<input\b[^>]*>/gi)) {
    const tag = m[0]
    if (!/\btype="hidden"/i.test(tag)) continue
    const name = tag.match(/\bname="([^"]*)"/i)
    const value = tag.match(/\bvalue="([^"]*)"/i)
    if (name) fields.append(unescapeHtml(name[1]), value ? unescapeHtml(value[1]) : '')
  }
  return { action: new URL(unescapeHtml(form[1]), pageUrl), fields }
}
