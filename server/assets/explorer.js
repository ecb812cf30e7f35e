// Placeholder: the explorer's script replaces this file.
document.getElementById("status").textContent = "rafle explorer: the API is under /api/v1/";
