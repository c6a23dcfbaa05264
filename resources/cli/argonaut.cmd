@echo off
rem The CLI of a packaged Argonaut Studio (Windows): resources\bin\argonaut.cmd runs the CLI bundle
rem with the bundled Node in this console (the app executable is a GUI program: no console output).
set "RESOURCES=%~dp0.."
"%RESOURCES%\node\node.exe" "%RESOURCES%\app.asar.unpacked\out\cli\index.mjs" --no-gui %*
exit /b %ERRORLEVEL%
