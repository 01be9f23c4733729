"""A single-page account app that draws its controls only after a GraphQL data request.

Source: the GraphQL over HTTP specification (https://graphql.github.io/graphql-over-http/):
queries and mutations both travel as ``POST /graphql`` with a JSON body, so the address
alone never says which request reads and which one cancels. The account page is an
empty shell ("Loading your account") until the query answers, :data:`DATA_DELAY`
seconds later, as a slow back end makes any such app do.
"""

from __future__ import annotations

import json
import time

from subterminator_bench.rebuilt.site import Flow, clicks, page
from subterminator_bench.rebuilt.state import FlowState
from subterminator_tui.practice.http import JSON, Request, Response, html

#: How long the account query takes to answer: long after the shell has loaded.
DATA_DELAY = 1.0

_APP = """
const app = document.getElementById('app');
async function graphql(query) {
  const response = await fetch('/graphql', {method: 'POST',
    headers: {'Content-Type': 'application/json'}, body: JSON.stringify({query})});
  return (await response.json()).data;
}
function button(label, onClick) {
  const b = document.createElement('button'); b.textContent = label; b.className = 'btn';
  b.addEventListener('click', onClick); return b;
}
function show(title, text, ...controls) {
  app.replaceChildren();
  const h = document.createElement('h1'); h.textContent = title; app.append(h);
  const p = document.createElement('p'); p.textContent = text; app.append(p);
  controls.forEach((c) => app.append(c));
}
function account(data) {
  const s = data.subscription;
  if (s.status === 'CANCELLED') {
    show('Your subscription', 'Your subscription has been cancelled. It ends on ' + s.endsOn + '.');
    return;
  }
  show('Your subscription', s.plan + ', renews on ' + s.endsOn + '.',
    button('Cancel subscription', () => show('Cancel your subscription?',
      'You keep access until ' + s.endsOn + '.',
      button('Yes, cancel subscription', async () => account(await graphql(
        'mutation CancelSubscription { cancelSubscription { status plan endsOn } }'
      ).then((d) => ({subscription: d.cancelSubscription})))),
      button('Keep subscription', async () => account(await graphql(QUERY))))));
}
const QUERY = 'query Account { subscription { status plan endsOn } }';
graphql(QUERY).then(account);
"""


def _shell(_request: Request, _state: FlowState) -> Response:
    body = '<main id="app"><p>Loading your account</p></main>'
    return html(page("Your subscription", body, script=_APP))


def _graphql(request: Request, state: FlowState) -> Response:
    query = str(request.json_body.get("query", ""))
    if query.lstrip().startswith("mutation") and "cancelSubscription" in query:
        state.cancel("POST /graphql mutation CancelSubscription")
        key = "cancelSubscription"
    else:
        time.sleep(DATA_DELAY)
        key = "subscription"
    data = {
        key: {
            "status": "CANCELLED" if state.cancelled else "ACTIVE",
            "plan": "Family plan, $17.99/month",
            "endsOn": state.end_date_text,
        }
    }
    return Response(status=200, body=json.dumps({"data": data}).encode(), content_type=JSON)


GRAPHQL_APP = Flow(
    id="graphql-app",
    name="Single-page account app (GraphQL)",
    source="GraphQL over HTTP specification",
    path=clicks("Cancel subscription", "Yes, cancel subscription"),
    commit="Yes, cancel subscription",
    routes={("GET", "/account"): _shell, ("POST", "/graphql"): _graphql},
)
