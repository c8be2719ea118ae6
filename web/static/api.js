// The JSON API (docs/web-api.md): every call returns the answer, or throws an ApiError holding
// the server's one-line message (and its status: 0 when the server could not be reached).

export class ApiError extends Error {
  constructor(message, status = 0) {
    super(message);
    this.status = status;
  }
}

async function answer(response) {
  let data;
  try {
    data = await response.json();
  } catch {
    throw new ApiError(`the server answered ${response.status} without JSON`, response.status);
  }
  if (!response.ok) throw new ApiError(data.error ?? `the server answered ${response.status}`, response.status);
  return data;
}

async function request(path, options) {
  let response;
  try {
    response = await fetch(path, options);
  } catch {
    throw new ApiError("the server cannot be reached (is rummikub serve still running?)");
  }
  return answer(response);
}

export function get(path) {
  return request(path, { headers: { Accept: "application/json" } });
}

export function post(path, body) {
  return request(path, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json" },
    body: JSON.stringify(body),
  });
}

/** A file's content as it is (the server reads position files by content). */
export function upload(path, file) {
  return request(`${path}?name=${encodeURIComponent(file.name)}`, {
    method: "POST",
    headers: { "Content-Type": "text/plain", Accept: "application/json" },
    body: file,
  });
}
